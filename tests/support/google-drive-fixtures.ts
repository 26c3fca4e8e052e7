// A service account and GoogleDrive configurations for the Drive emulator (tests/emulators/google-drive.ts).
import { generateKeyPairSync } from "node:crypto";
import type { Row } from "@/lib/connectors/types";

export const DRIVE_CLIENT_EMAIL = "reader@sync-project.iam.gserviceaccount.com";
const keys = generateKeyPairSync("rsa", { modulusLength: 2048 });
export const DRIVE_PRIVATE_KEY = keys.privateKey.export({ type: "pkcs8", format: "pem" }).toString();
export const DRIVE_PUBLIC_KEY = keys.publicKey.export({ type: "spki", format: "pem" }).toString();
export const OTHER_PRIVATE_KEY = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs8", format: "pem" }).toString();

/** The key file as Google Cloud hands it out, with its token endpoint at `baseUrl`. */
export function credentialsJson(baseUrl: string, privateKey = DRIVE_PRIVATE_KEY): Row {
  return {
    type: "service_account",
    project_id: "sync-project",
    private_key_id: "0f3c1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f",
    private_key: privateKey,
    client_email: DRIVE_CLIENT_EMAIL,
    client_id: "104857600000000000001",
    auth_uri: "https://accounts.google.com/o/oauth2/auth",
    token_uri: `${baseUrl}/token`,
    auth_provider_x509_cert_url: "https://www.googleapis.com/oauth2/v1/certs",
    client_x509_cert_url: "https://www.googleapis.com/robot/v1/metadata/x509/reader%40sync-project.iam.gserviceaccount.com",
    universe_domain: "googleapis.com",
  };
}

export function driveConfig(baseUrl: string, overrides: Row = {}): Row {
  return { data_type: "structured", credentials_json: credentialsJson(baseUrl), folder_name: "Exports", base_url: baseUrl, timeout: 10, ...overrides };
}

// AES-256-GCM for connector configurations at rest. Format: "v1:<iv>:<tag>:<ciphertext>" (base64).
import "server-only";
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import type { z } from "zod";
import { secrets } from "@/lib/settings/secrets";
import { parseStored } from "@/lib/validation/stored";

function key(): Buffer {
  const raw = secrets().encryptionKey;
  const decoded = Buffer.from(raw, "base64");
  // Accept any string: a 32-byte base64 key is used as is, anything else is hashed to 32 bytes.
  return decoded.length === 32 ? decoded : createHash("sha256").update(raw).digest();
}

export function encrypt(plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key(), iv);
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return ["v1", iv.toString("base64"), cipher.getAuthTag().toString("base64"), body.toString("base64")].join(":");
}

export function decrypt(payload: string): string {
  const [version, iv, tag, body] = payload.split(":");
  if (version !== "v1" || !iv || !tag || body === undefined) throw new Error("Unknown encrypted payload format");
  const decipher = createDecipheriv("aes-256-gcm", key(), Buffer.from(iv, "base64"));
  decipher.setAuthTag(Buffer.from(tag, "base64"));
  return Buffer.concat([decipher.update(Buffer.from(body, "base64")), decipher.final()]).toString("utf8");
}

export const encryptJson = (value: unknown): string => encrypt(JSON.stringify(value));
/** The decrypted JSON as `schema` describes it; a value that does not match fails naming `what` (parseStored). */
export const decryptJson = <S extends z.ZodType>(schema: S, payload: string, what: string): z.output<S> =>
  parseStored(schema, JSON.parse(decrypt(payload)), what);

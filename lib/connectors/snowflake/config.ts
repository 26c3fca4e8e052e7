// The Snowflake source's configuration, typed: parsed once from the stored object (the reference's
// shape: `credentials`, host, role, warehouse, database, schema) so the adapter never reads it untyped.
import { ConnectorError } from "../shared/errors";
import { numberField, objectField, optionalString, stringField } from "../shared/config";
import type { Row } from "../types";

export type SnowflakeAuth =
  | { kind: "pat"; username: string; token: string }
  | { kind: "key_pair"; username: string; privateKey: string; passphrase?: string };

export interface SnowflakeConfig {
  host: string;
  /** `https://<host>` unless `base_url` overrides it; no trailing slash. */
  baseUrl: string;
  /** The account identifier for JWTs: the host's first label, upper case (a locator's region dropped). */
  account: string;
  role: string;
  warehouse: string;
  database: string;
  schema?: string;
  auth: SnowflakeAuth;
  queryTimeoutSeconds: number;
  requestTimeoutMs: number;
}

export function parseSnowflakeConfig(config: Row): SnowflakeConfig {
  const host = stringField(config, "host")
    .trim()
    .replace(/^https?:\/\//i, "")
    .replace(/\/+$/, "");
  const credentials = objectField(config, "credentials");
  if (!optionalString(credentials, "username")) {
    throw new ConnectorError(
      "Give credentials: the user's name and a programmatic access token in the password field (username/password), or its private key (key_pair).",
    );
  }
  const username = stringField(credentials, "username");
  const authType = optionalString(credentials, "auth_type") ?? "username/password";
  let auth: SnowflakeAuth;
  if (authType === "key_pair") {
    const privateKey = optionalString(credentials, "private_key");
    if (!privateKey) throw new ConnectorError("Key-pair authentication needs the user's private key (credentials.private_key).");
    auth = { kind: "key_pair", username, privateKey, passphrase: optionalString(credentials, "private_key_passphrase") };
  } else if (authType === "username/password") {
    const token = optionalString(credentials, "password");
    if (!token) throw new ConnectorError("The password field must hold a programmatic access token of the user: Snowflake's SQL API takes no plain password.");
    auth = { kind: "pat", username, token };
  } else {
    throw new ConnectorError(`Unknown auth_type "${authType}": use "username/password" (with a programmatic access token) or "key_pair".`);
  }
  const baseUrl = (optionalString(config, "base_url") ?? `https://${host}`).replace(/\/+$/, "");
  return {
    host,
    baseUrl,
    account: host.split(".")[0].toUpperCase(),
    role: stringField(config, "role"),
    warehouse: stringField(config, "warehouse"),
    database: stringField(config, "database"),
    schema: optionalString(config, "schema"),
    auth,
    queryTimeoutSeconds: Math.max(1, Math.floor(numberField(config, "query_timeout", 300))),
    requestTimeoutMs: Math.max(1, numberField(config, "request_timeout", 60)) * 1000,
  };
}

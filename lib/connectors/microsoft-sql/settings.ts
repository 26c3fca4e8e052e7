// The Microsoft SQL destination's typed settings, read from the reference's configuration shape.
import type { Row } from "../types";
import { ConnectorError } from "../shared/errors";
import { numberField, objectField, optionalString, secondsToMs, stringField } from "../shared/config";

export interface MssqlSettings {
  host: string;
  port: number;
  database: string;
  schema: string;
  user: string;
  password: string;
  encrypt: boolean;
  trustServerCertificate: boolean;
  connectTimeoutMs: number;
  queryTimeoutMs: number;
}

export function mssqlSettings(config: Row): MssqlSettings {
  if (typeof config.credentials !== "object" || config.credentials === null) {
    throw new ConnectorError('The configuration has no credentials: add {"auth_type": "username/password", "username": …, "password": …}.');
  }
  const credentials = objectField(config, "credentials");
  if (credentials.auth_type !== undefined && credentials.auth_type !== "username/password") {
    throw new ConnectorError(`Authentication type "${String(credentials.auth_type)}" is not supported: use "username/password".`);
  }
  return {
    host: stringField(config, "host"),
    port: numberField(config, "port", 1433),
    database: stringField(config, "database"),
    schema: stringField(config, "schema", "dbo"),
    user: stringField(credentials, "username"),
    password: optionalString(credentials, "password") ?? "",
    encrypt: config.encrypt !== false,
    trustServerCertificate: config.trust_server_certificate === true,
    connectTimeoutMs: secondsToMs(config, "connect_timeout", 10),
    queryTimeoutMs: secondsToMs(config, "query_timeout", 60),
  };
}

export function tryMssqlSettings(config: Row): MssqlSettings | undefined {
  try {
    return mssqlSettings(config);
  } catch {
    return undefined;
  }
}

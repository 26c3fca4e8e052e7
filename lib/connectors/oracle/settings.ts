// The Oracle connectors' typed settings, read from the reference's configuration shape.
import type { Row } from "../types";
import { numberField, optionalString, secondsToMs, stringField } from "../shared/config";

export interface OracleSettings {
  host: string;
  port: number;
  /** The service name of the Easy Connect string `host:port/service` (the reference calls it sid). */
  service: string;
  user: string;
  password: string;
  /** The owner whose tables are discovered and written: the setting, else the user (upper case, as Oracle stores unquoted names). */
  owner: string;
  connectTimeoutMs: number;
  queryTimeoutMs: number;
}

export function oracleSettings(config: Row): OracleSettings {
  const user = stringField(config, "username");
  return {
    host: stringField(config, "host"),
    port: numberField(config, "port", 1521),
    service: stringField(config, "sid"),
    user,
    password: optionalString(config, "password") ?? "",
    owner: optionalString(config, "schema") ?? user.toUpperCase(),
    connectTimeoutMs: secondsToMs(config, "connect_timeout", 10),
    queryTimeoutMs: secondsToMs(config, "query_timeout", 60),
  };
}

export function tryOracleSettings(config: Row): OracleSettings | undefined {
  try {
    return oracleSettings(config);
  } catch {
    return undefined;
  }
}

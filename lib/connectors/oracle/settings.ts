// The Oracle connectors' typed settings, read from the reference's configuration shape.
import type { Row } from "../types";
import { numberField, optionalString, secondsToMs, stringField } from "../shared/config";
import { ConnectorError } from "../shared/errors";

/**
 * A service name as Easy Connect takes it: letters, digits and _ . $ # -. Anything else (`?`, `/`,
 * `:`, `(`) would add parameters or a descriptor to the connect string, e.g. `FREEPDB1?https_proxy=…`
 * makes the driver open its own connection to a proxy the outbound policy never checked.
 */
export const SERVICE_NAME_PATTERN = "^[A-Za-z0-9_.$#-]{1,128}$";
const SERVICE_NAME = new RegExp(SERVICE_NAME_PATTERN);

/** The service name, refused unless it is one (see SERVICE_NAME_PATTERN). */
export function serviceName(value: string): string {
  if (!SERVICE_NAME.test(value)) {
    throw new ConnectorError("The service name (sid) may hold only letters, digits and _ . $ # - (at most 128 characters), e.g. ORCLPDB1.");
  }
  return value;
}

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
    service: serviceName(stringField(config, "sid")),
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

// The Redshift source's typed settings. Redshift's connection fields are PostgreSQL's (it speaks the
// same wire protocol), so its configuration becomes the PostgreSQL connector's, with Redshift's
// defaults filled in: port 5439 (the reference sends it as a string), SSL required.
import type { Row } from "../types";
import { ConnectorError } from "../shared/errors";
import { objectField } from "../shared/config";
import { pgSettings, type PgSettings } from "../postgresql/connection";

export type RedshiftSettings = PgSettings;

/** The configuration as the shared PostgreSQL helpers read it (a new object; the input is untouched). */
export function wireConfig(config: Row): Row {
  const credentials = objectField(config, "credentials");
  const authType = credentials.auth_type;
  if (authType !== undefined && authType !== "username/password") {
    throw new ConnectorError(
      `Authentication type "${String(authType)}" is not supported: use "username/password".`,
    );
  }
  if (config.credentials === undefined) {
    throw new ConnectorError(
      'The configuration has no credentials: add {"auth_type": "username/password", "username": …, "password": …}.',
    );
  }
  return {
    ...config,
    port: config.port === undefined || config.port === "" ? 5439 : config.port,
    ssl_mode: typeof config.ssl_mode === "string" && config.ssl_mode !== "" ? config.ssl_mode : "require",
  };
}

export function redshiftSettings(config: Row): RedshiftSettings {
  return pgSettings(wireConfig(config));
}

/** Settings for error sentences, when the configuration may be too broken to parse. */
export function tryRedshiftSettings(config: Row): RedshiftSettings | undefined {
  try {
    return redshiftSettings(config);
  } catch {
    return undefined;
  }
}

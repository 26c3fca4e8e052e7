// AIS Data Store destination: the store speaks PostgreSQL's wire protocol, so every operation is the
// PostgreSQL destination's (set-based writes, bisected bad rows, the outbound policy on the host),
// run on the configuration with the reference's shape checked and its defaults filled in.
import type { DestinationConnector, Row } from "../types";
import { ConnectorError, safeCheck } from "../shared/errors";
import { objectField } from "../shared/config";
import { postgresqlDestination } from "../postgresql/destination";
import { aisDataStoreDestinationDefinition } from "./definition";

/** The configuration as the PostgreSQL destination reads it (a new object; the input is untouched). */
export function wireConfig(config: Row): Row {
  if (typeof config.credentials !== "object" || config.credentials === null) {
    throw new ConnectorError(
      'The configuration has no credentials: add {"auth_type": "username/password", "username": …, "password": …}.',
    );
  }
  const authType = objectField(config, "credentials").auth_type;
  if (authType !== undefined && authType !== "username/password") {
    throw new ConnectorError(`Authentication type "${String(authType)}" is not supported: use "username/password".`);
  }
  return { ...config, port: config.port === undefined || config.port === "" ? 5432 : config.port };
}

/** A broken configuration fails every record with the sentence, never throws from write(). */
function failedRecords(err: unknown, keys: string[]) {
  const error = err instanceof Error ? err.message : String(err);
  return keys.map((key) => ({ key, ok: false, error, retryable: false }));
}

const pgText = postgresqlDestination.textRows!;

export const aisDataStoreDestination: DestinationConnector = {
  definition: aisDataStoreDestinationDefinition,
  check: async (config) => {
    let wire: Row;
    try {
      wire = wireConfig(config);
    } catch (err) {
      return safeCheck(aisDataStoreDestinationDefinition, config, () => Promise.reject(err));
    }
    return postgresqlDestination.check(wire);
  },
  discover: (config, signal) => postgresqlDestination.discover(wireConfig(config), signal),
  write: (config, records, options) => {
    let wire: Row;
    try {
      wire = wireConfig(config);
    } catch (err) {
      return Promise.resolve(failedRecords(err, records.map((r) => r.key)));
    }
    return postgresqlDestination.write(wire, records, options);
  },
  textRows: {
    target: (config, stream) => pgText.target(wireConfig(config), stream),
    upsert: (config, stream, columns, lines, options) => pgText.upsert(wireConfig(config), stream, columns, lines, options),
  },
  existingKeys: (config, stream, keys, signal) => postgresqlDestination.existingKeys!(wireConfig(config), stream, keys, signal),
  close: async (config) => {
    try {
      await postgresqlDestination.close?.(wireConfig(config));
    } catch {
      // Nothing was opened for a configuration that cannot be read.
    }
  },
};

// The Databricks source's configuration, typed: the reference's fields (host, port, access_token,
// http_path, catalog, schema) and the warehouse id the Statement Execution API needs, derived from
// the SQL warehouse's HTTP path.
import { ConnectorError } from "../shared/errors";
import { numberField, optionalString, stringField } from "../shared/config";
import type { Row } from "../types";

export interface DatabricksConfig {
  host: string;
  baseUrl: string;
  token: string;
  warehouseId: string;
  catalog: string;
  schema: string;
  queryTimeoutSeconds: number;
  requestTimeoutMs: number;
}

/** The warehouse id of `/sql/1.0/warehouses/<id>` (or the older `/sql/1.0/endpoints/<id>`). */
export function warehouseIdOf(httpPath: string): string | undefined {
  return /^\/?sql\/1\.0\/(?:warehouses|endpoints)\/([A-Za-z0-9_-]+)\/?$/.exec(httpPath.trim())?.[1];
}

export function parseDatabricksConfig(config: Row): DatabricksConfig {
  const host = stringField(config, "host")
    .trim()
    .replace(/^https?:\/\//i, "")
    .replace(/\/+$/, "");
  const port = stringField(config, "port", "443");
  const httpPath = stringField(config, "http_path");
  const warehouseId = warehouseIdOf(httpPath);
  if (!warehouseId) {
    throw new ConnectorError(
      `The HTTP path "${httpPath}" is not a SQL warehouse's: statements run on a SQL warehouse, so give its HTTP path, /sql/1.0/warehouses/<warehouse id>.`,
    );
  }
  const token = optionalString(config, "access_token");
  if (!token) throw new ConnectorError("The access token is missing: give a Databricks access token that may use the SQL warehouse.");
  const base = optionalString(config, "base_url") ?? `https://${host}${port === "443" ? "" : `:${port}`}`;
  return {
    host,
    baseUrl: base.replace(/\/+$/, ""),
    token,
    warehouseId,
    catalog: stringField(config, "catalog", "hive_metastore"),
    schema: stringField(config, "schema", "default"),
    queryTimeoutSeconds: Math.max(1, Math.floor(numberField(config, "query_timeout", 300))),
    requestTimeoutMs: Math.max(1, numberField(config, "request_timeout", 60)) * 1000,
  };
}

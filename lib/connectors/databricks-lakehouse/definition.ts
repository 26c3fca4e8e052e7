// The Databricks Lakehouse destination's settings: the reference's (host, api_token, warehouse_id,
// catalog, schema) and our optional timeouts and base URL override, typed for the Statement
// Execution API client the Databricks source already has.
import { JSON_SCHEMA_DRAFT } from "../shared/spec";
import { ConnectorError } from "../shared/errors";
import { numberField, optionalString, stringField } from "../shared/config";
import type { ConnectorDefinition, Row } from "../types";
import type { DatabricksConfig } from "../databricks/config";
import { WRITE_MODES } from "@/lib/sync-rules/write-mode";

export const databricksLakehouseDefinition: ConnectorDefinition = {
  name: "DatabricksLakehouse",
  title: "Databricks Data Warehouse",
  connectorType: "destination",
  category: "Database",
  icon: "/icons/databricks-lakehouse.svg",
  documentationUrl: "https://docs.databricks.com/api/workspace/statementexecution/executestatement",
  streamType: "dynamic",
  writeModes: WRITE_MODES,
  // The token goes to the workspace: a new host or API URL needs it entered again.
  secretTargetFields: ["host", "base_url"],
  connectionSpecification: {
    $schema: JSON_SCHEMA_DRAFT,
    title: "Databricks Datawarehouse",
    type: "object",
    required: ["host", "api_token", "warehouse_id", "catalog", "schema"],
    properties: {
      host: { type: "string", title: "Host", description: "The workspace URL, e.g. https://adb-1234567890123456.7.azuredatabricks.net (https:// may be left out).", minLength: 1, order: 0 },
      api_token: {
        type: "string",
        title: "API Token",
        description: "A personal access token of a user or service principal that may use the SQL warehouse and modify the tables.",
        secret: true,
        multiwoven_secret: true,
        minLength: 1,
        order: 1,
      },
      warehouse_id: { type: "string", title: "Warehouse ID", description: "The SQL warehouse the statements run on (its Overview page shows the id).", pattern: "^[A-Za-z0-9_-]+$", order: 2 },
      catalog: { type: "string", title: "Databricks catalog", description: "The catalog the tables are in.", default: "hive_metastore", order: 3 },
      schema: { type: "string", title: "Database schema", description: "The schema whose tables are written.", default: "default", order: 4 },
      query_timeout: { type: "integer", title: "Statement timeout (seconds)", description: "Longest a statement may run on the warehouse; past it the statement is cancelled.", minimum: 1, maximum: 3600, default: 300, order: 5 },
      request_timeout: { type: "integer", title: "Request timeout (seconds)", description: "Longest one call to the Statement Execution API may take.", minimum: 1, maximum: 600, default: 60, order: 6 },
      base_url: { type: "string", title: "API base URL (advanced)", description: "Overrides the host's URL for the API (a proxy or a test emulator). Leave empty normally.", format: "uri", pattern: "^https?://", order: 7 },
    },
  },
};

const HOST = /^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)+(:\d{1,5})?$/;

/** The settings as the Statement Execution API client takes them. */
export function lakehouseConfig(config: Row): DatabricksConfig {
  const host = stringField(config, "host").trim().replace(/^https:\/\//i, "").replace(/\/+$/, "");
  const override = optionalString(config, "base_url");
  if (!override && !HOST.test(host)) throw new ConnectorError(`"${host}" is not a Databricks workspace host (e.g. adb-1234567890123456.7.azuredatabricks.net).`);
  const token = optionalString(config, "api_token");
  if (!token) throw new ConnectorError("The API token is missing: give a Databricks access token that may use the SQL warehouse.");
  const warehouseId = stringField(config, "warehouse_id").trim();
  if (!/^[A-Za-z0-9_-]+$/.test(warehouseId)) throw new ConnectorError(`"${warehouseId}" is not a SQL warehouse id.`);
  return {
    host,
    baseUrl: (override ?? `https://${host}`).replace(/\/+$/, ""),
    token,
    warehouseId,
    catalog: stringField(config, "catalog", "hive_metastore"),
    schema: stringField(config, "schema", "default"),
    queryTimeoutSeconds: Math.max(1, Math.floor(numberField(config, "query_timeout", 300))),
    requestTimeoutMs: Math.max(1, numberField(config, "request_timeout", 60)) * 1000,
  };
}

import { JSON_SCHEMA_DRAFT } from "../shared/spec";
import type { ConnectorDefinition, Row } from "../types";
import { warehouseIdOf } from "./config";

export const databricksSourceDefinition: ConnectorDefinition = {
  name: "Databricks",
  title: "Databricks Data Warehouse",
  connectorType: "source",
  category: "Data Warehouse",
  subCategory: "Relational Database",
  icon: "/icons/databricks.svg",
  documentationUrl: "https://docs.databricks.com/api/workspace/statementexecution",
  streamType: "dynamic",
  supportsQuery: true,
  // The token goes to the workspace: a new host, port or API URL needs it entered again.
  secretTargetFields: ["host", "port", "base_url"],
  connectionSpecification: {
    $schema: JSON_SCHEMA_DRAFT,
    title: "Databricks Datawarehouse",
    type: "object",
    required: ["host", "port", "http_path", "catalog", "schema"],
    properties: {
      host: {
        type: "string",
        title: "Server hostname",
        description: "The workspace's host name, e.g. `dbc-a1b2c3d4-e5f6.cloud.databricks.com` (a SQL warehouse's Connection details).",
        minLength: 1,
        order: 0,
      },
      port: { type: "string", title: "Port", description: "HTTPS port of the workspace, usually 443.", default: "443", pattern: "^[0-9]{1,5}$", order: 1 },
      access_token: {
        type: "string",
        title: "Personal access token",
        description: "A Databricks access token of a user or service principal that may use the SQL warehouse and read the tables.",
        secret: true,
        multiwoven_secret: true,
        order: 2,
      },
      http_path: {
        type: "string",
        title: "HTTP path",
        description: "The SQL warehouse's HTTP path, `/sql/1.0/warehouses/<warehouse id>` (its Connection details); statements run on that warehouse.",
        minLength: 1,
        order: 3,
      },
      catalog: { type: "string", title: "Catalog", description: "Unity Catalog catalog the statements run in and whose tables are discovered.", default: "hive_metastore", order: 4 },
      schema: { type: "string", title: "Schema", description: "Schema whose tables are discovered (and the statements' default).", default: "default", order: 5 },
      query_timeout: {
        type: "integer",
        title: "Query timeout (seconds)",
        description: "Longest a statement may run on the warehouse; past it the statement is cancelled.",
        minimum: 1,
        maximum: 86400,
        default: 300,
        order: 6,
      },
      request_timeout: {
        type: "integer",
        title: "Request timeout (seconds)",
        description: "Longest one call to the Statement Execution API (a poll, a result chunk) may take.",
        minimum: 1,
        maximum: 600,
        default: 60,
        order: 7,
      },
      base_url: {
        type: "string",
        title: "API base URL (advanced)",
        description: "Overrides `https://<host>:<port>` for the API (a test emulator). Leave empty normally.",
        order: 8,
      },
    },
  },
  configurationProblems: (config: Row) => {
    const problems = [];
    if (typeof config.http_path === "string" && warehouseIdOf(config.http_path) === undefined) {
      problems.push({
        path: "http_path",
        message:
          "cannot be used: statements run on a SQL warehouse, so give its HTTP path, `/sql/1.0/warehouses/<warehouse id>` (a cluster's `sql/protocolv1/o/…` path is not supported).",
      });
    }
    return problems;
  },
};

import { JSON_SCHEMA_DRAFT } from "../shared/spec";
import type { ConnectorDefinition } from "../types";

export const duckdbSourceDefinition: ConnectorDefinition = {
  name: "DuckDB",
  title: "DuckDB (files)",
  connectorType: "source",
  category: "Database",
  subCategory: "Files and Analytics",
  icon: "/icons/duckdb.svg",
  documentationUrl: "https://duckdb.org/docs/stable/data/overview",
  connectionSpecification: {
    $schema: JSON_SCHEMA_DRAFT,
    title: "DuckDB",
    type: "object",
    properties: {
      database_file: {
        type: "string",
        title: "Database file",
        description:
          "Optional: a DuckDB database in the workspace's data directory (a path relative to it, e.g. `warehouse.duckdb`), opened read-only. Its tables are then the model's tables; the directory's Parquet, CSV and JSON files are views either way.",
        maxLength: 255,
        order: 0,
      },
      query_timeout: {
        type: "integer",
        title: "Query timeout (seconds)",
        description: "Longest a preview, or the wait for one batch of a read, may take.",
        minimum: 1,
        maximum: 86400,
        default: 60,
        order: 1,
      },
      memory_limit_mb: {
        type: "integer",
        title: "Memory limit (MiB)",
        description:
          "Most memory DuckDB may use for one query (it fails the query beyond it; it never spills to disk).",
        minimum: 64,
        // Per query: several runs at once must still fit in the server's memory.
        maximum: 1024,
        default: 256,
        order: 2,
      },
    },
  },
  streamType: "dynamic",
  supportsQuery: true,
  workspaceScoped: true,
};

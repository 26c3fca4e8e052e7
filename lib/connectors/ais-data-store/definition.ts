// The AIS Data Store destination's definition: the reference's settings (credentials object, host,
// port as a string, database, schema) unchanged, plus our optional SSL mode and timeouts. AIS Data
// Store speaks PostgreSQL's wire protocol, so the fields are the PostgreSQL destination's.
import { JSON_SCHEMA_DRAFT, serverPortField, SQL_TIMEOUT_FIELDS } from "../shared/spec";
import type { ConnectorDefinition, JsonSchema, Row } from "../types";
import { postgresqlConnectionSpecification } from "../postgresql/definition";
import { WRITE_MODES } from "@/lib/sync-rules/write-mode";

const pgProperties = postgresqlConnectionSpecification.properties as Record<string, Record<string, unknown>>;

export const aisDataStoreConnectionSpecification: JsonSchema = {
  $schema: JSON_SCHEMA_DRAFT,
  title: "AIS Data Store",
  type: "object",
  required: ["host", "port", "database", "schema"],
  properties: {
    credentials: {
      ...pgProperties.credentials,
      description: "The database user to write as; it needs INSERT, UPDATE and DELETE on the tables synced to.",
      required: ["auth_type", "username", "password"],
      order: 0,
    },
    host: { type: "string", title: "Host", description: "Host name or IP address of the AIS Data Store server.", minLength: 1, order: 1 },
    port: { ...serverPortField(5432, 2), default: "5432" },
    database: { type: "string", title: "Database", description: "Name of the database to connect to.", minLength: 1, order: 3 },
    schema: { type: "string", title: "Schema", description: "Schema whose tables are discovered and written.", minLength: 1, order: 4 },
    ssl_mode: { ...pgProperties.ssl_mode, order: 5 },
    ...SQL_TIMEOUT_FIELDS,
  },
};

/** The reference leaves `credentials` optional; a connection cannot be made without it. */
function configurationProblems(config: Row) {
  const credentials = config.credentials;
  if (typeof credentials === "object" && credentials !== null) return [];
  return [
    {
      path: "credentials",
      message: 'credentials is required: add {"auth_type": "username/password", "username": …, "password": …}',
    },
  ];
}

export const aisDataStoreDestinationDefinition: ConnectorDefinition = {
  name: "AISDataStore",
  title: "AIS Data Store",
  connectorType: "destination",
  category: "Database",
  icon: "/icons/ais-data-store.svg",
  documentationUrl: "https://www.postgresql.org/docs/current/sql-insert.html",
  connectionSpecification: aisDataStoreConnectionSpecification,
  secretTargetFields: ["host", "port", "database", "ssl_mode"],
  streamType: "dynamic",
  writeModes: WRITE_MODES,
  configurationProblems,
};

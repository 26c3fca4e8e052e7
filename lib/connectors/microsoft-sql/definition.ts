// The Microsoft SQL destination's definition: the reference's settings (credentials object, host,
// port as a string, database, schema) unchanged, plus our optional TLS switches and timeouts.
import { JSON_SCHEMA_DRAFT, serverPortField, SQL_TIMEOUT_FIELDS } from "../shared/spec";
import type { ConnectorDefinition, JsonSchema, Row } from "../types";
import { WRITE_MODES } from "@/lib/sync-rules/write-mode";

export const microsoftSqlConnectionSpecification: JsonSchema = {
  $schema: JSON_SCHEMA_DRAFT,
  title: "Microsoft SQL",
  type: "object",
  required: ["host", "port", "database", "schema"],
  properties: {
    credentials: {
      type: "object",
      title: "Credentials",
      description: "The SQL Server login to write as; it needs INSERT, UPDATE and DELETE on the tables synced to.",
      required: ["auth_type", "username", "password"],
      order: 0,
      properties: {
        auth_type: {
          type: "string",
          title: "Authentication type",
          description: "Only SQL Server authentication (a login and its password) is supported.",
          enum: ["username/password"],
          default: "username/password",
          readOnly: true,
          order: 0,
        },
        username: { type: "string", title: "Username", description: "The SQL Server login.", minLength: 1, order: 1 },
        password: { type: "string", title: "Password", description: "Password of the login.", secret: true, multiwoven_secret: true, order: 2 },
      },
    },
    host: { type: "string", title: "Host", description: "Host name or IP address of the SQL Server.", minLength: 1, order: 1 },
    port: { ...serverPortField(1433, 2), default: "1433" },
    database: { type: "string", title: "Database", description: "The database to connect to.", minLength: 1, order: 3 },
    schema: { type: "string", title: "Schema", description: "Schema whose tables are discovered and written, e.g. dbo.", minLength: 1, order: 4 },
    encrypt: {
      type: "boolean",
      title: "Encrypt",
      description: "Encrypt the connection with TLS (on by default; Azure SQL requires it).",
      default: true,
      order: 5,
    },
    trust_server_certificate: {
      type: "boolean",
      title: "Trust the server certificate",
      description: "Accept a certificate that does not chain to a trusted authority (a self-signed one). Off by default.",
      default: false,
      order: 5,
    },
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

export const microsoftSqlDestinationDefinition: ConnectorDefinition = {
  name: "MicrosoftSql",
  title: "Microsoft SQL",
  connectorType: "destination",
  category: "Database",
  icon: "/icons/microsoft-sql.svg",
  documentationUrl: "https://learn.microsoft.com/en-us/sql/t-sql/statements/merge-transact-sql",
  connectionSpecification: microsoftSqlConnectionSpecification,
  secretTargetFields: ["host", "port", "database", "encrypt", "trust_server_certificate"],
  streamType: "dynamic",
  writeModes: WRITE_MODES,
  configurationProblems,
};

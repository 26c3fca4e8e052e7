import { JSON_SCHEMA_DRAFT, serverPortField, SQL_TIMEOUT_FIELDS } from "../shared/spec";
import type { ConnectorDefinition, JsonSchema } from "../types";
import { WRITE_MODES } from "@/lib/sync-rules/write-mode";

/** Shared by the source and the destination: both connect the same way. */
export const postgresqlConnectionSpecification: JsonSchema = {
  $schema: JSON_SCHEMA_DRAFT,
  title: "PostgreSQL",
  type: "object",
  required: ["host", "port", "database", "credentials"],
  properties: {
    host: {
      type: "string",
      title: "Host",
      description: "Host name or IP address of the PostgreSQL server.",
      minLength: 1,
      order: 0,
    },
    port: serverPortField(5432, 1),
    database: { type: "string", title: "Database", description: "Name of the database to connect to.", minLength: 1, order: 2 },
    schema: {
      type: "string",
      title: "Schema",
      description: "Schema whose tables are discovered (and written, for a destination).",
      default: "public",
      order: 3,
    },
    credentials: {
      type: "object",
      title: "Credentials",
      description: "How to authenticate.",
      required: ["auth_type", "username"],
      order: 4,
      properties: {
        auth_type: {
          type: "string",
          title: "Authentication type",
          description: "Only username and password authentication is supported.",
          enum: ["username/password"],
          default: "username/password",
          readOnly: true,
          order: 0,
        },
        username: { type: "string", title: "Username", description: "Database role to connect as.", minLength: 1, order: 1 },
        password: {
          type: "string",
          title: "Password",
          description: "Password of the role. Leave empty for trust authentication.",
          secret: true,
          multiwoven_secret: true,
          order: 2,
        },
      },
    },
    ssl_mode: {
      type: "string",
      title: "SSL mode",
      description:
        "disable: plain TCP; require: encrypted, certificate not checked; verify-ca: certificate chain checked; verify-full: chain and host name checked.",
      enum: ["disable", "require", "verify-ca", "verify-full"],
      default: "disable",
      order: 5,
    },
    ...SQL_TIMEOUT_FIELDS,
  },
};

const common = {
  name: "Postgresql",
  title: "PostgreSQL",
  icon: "/icons/postgresql.svg",
  connectionSpecification: postgresqlConnectionSpecification,
  secretTargetFields: ["host", "port", "database", "ssl_mode"],
  streamType: "dynamic",
} as const;

export const postgresqlSourceDefinition: ConnectorDefinition = {
  ...common,
  connectorType: "source",
  category: "Data Warehouse",
  subCategory: "Relational Database",
  documentationUrl: "https://www.postgresql.org/docs/current/libpq-connect.html",
  supportsQuery: true,
};

export const postgresqlDestinationDefinition: ConnectorDefinition = {
  ...common,
  connectorType: "destination",
  category: "Database",
  documentationUrl: "https://www.postgresql.org/docs/current/sql-insert.html",
  writeModes: WRITE_MODES,
};

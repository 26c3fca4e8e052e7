import { JSON_SCHEMA_DRAFT, serverPortField, SQL_TIMEOUT_FIELDS } from "../shared/spec";
import type { ConnectorDefinition, JsonSchema } from "../types";
import { WRITE_MODES } from "@/lib/sync-rules/write-mode";

/** Shared by the source and the destination. */
export const mariadbConnectionSpecification: JsonSchema = {
  $schema: JSON_SCHEMA_DRAFT,
  title: "MariaDB",
  type: "object",
  required: ["host", "port", "username", "database"],
  properties: {
    host: { type: "string", title: "Host", description: "Host name or IP address of the MariaDB server.", minLength: 1, order: 0 },
    port: serverPortField(3306, 1),
    username: { type: "string", title: "Username", description: "User to connect as.", minLength: 1, order: 2 },
    password: { type: "string", title: "Password", description: "Password of the user.", secret: true, multiwoven_secret: true, order: 3 },
    database: { type: "string", title: "Database", description: "Database (schema) whose tables are used.", minLength: 1, order: 4 },
    ssl_mode: {
      type: "string",
      title: "SSL mode",
      description: "disable: plain TCP; require: encrypted, certificate not checked; verify-full: certificate and host name checked.",
      enum: ["disable", "require", "verify-full"],
      default: "disable",
      order: 5,
    },
    ...SQL_TIMEOUT_FIELDS,
  },
};

const common = {
  name: "MariaDB",
  title: "MariaDB",
  icon: "/icons/mariadb.svg",
  connectionSpecification: mariadbConnectionSpecification,
  secretTargetFields: ["host", "port", "database", "ssl_mode"],
  streamType: "dynamic",
} as const;

export const mariadbSourceDefinition: ConnectorDefinition = {
  ...common,
  connectorType: "source",
  category: "Data Warehouse",
  subCategory: "Relational Database",
  documentationUrl: "https://mariadb.com/kb/en/select/",
  supportsQuery: true,
};

export const mariadbDestinationDefinition: ConnectorDefinition = {
  ...common,
  connectorType: "destination",
  category: "Database",
  documentationUrl: "https://mariadb.com/kb/en/insert-on-duplicate-key-update/",
  writeModes: WRITE_MODES,
};

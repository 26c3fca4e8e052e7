// The Oracle source's and destination's definitions: the reference's settings (host, port as a
// string, sid, username, password) unchanged, plus our optional owner and timeouts.
import { JSON_SCHEMA_DRAFT, serverPortField, SQL_TIMEOUT_FIELDS } from "../shared/spec";
import type { ConnectorDefinition, JsonSchema } from "../types";
import { WRITE_MODES } from "@/lib/sync-rules/write-mode";
import { SERVICE_NAME_PATTERN } from "./settings";

export const oracleConnectionSpecification: JsonSchema = {
  $schema: JSON_SCHEMA_DRAFT,
  title: "Oracle",
  type: "object",
  required: ["host", "port", "sid", "username", "password"],
  properties: {
    host: { type: "string", title: "Host", description: "Host name or IP address of the Oracle listener.", minLength: 1, order: 0 },
    port: { ...serverPortField(1521, 1), default: "1521" },
    sid: {
      type: "string",
      title: "Service name",
      description: "The database service to connect to (host:port/service), e.g. ORCLPDB1 or FREEPDB1.",
      minLength: 1,
      pattern: SERVICE_NAME_PATTERN,
      order: 2,
    },
    username: { type: "string", title: "Username", description: "The database user.", minLength: 1, order: 3 },
    password: { type: "string", title: "Password", description: "Password of the user.", secret: true, multiwoven_secret: true, order: 4 },
    schema: {
      type: "string",
      title: "Owner",
      description: "Schema (owner) whose tables are discovered and written. Default: the user's own schema.",
      order: 5,
    },
    ...SQL_TIMEOUT_FIELDS,
  },
};

const common = {
  name: "Oracle",
  title: "Oracle DB",
  category: "Database",
  icon: "/icons/oracle.svg",
  connectionSpecification: oracleConnectionSpecification,
  secretTargetFields: ["host", "port", "sid"],
  streamType: "dynamic",
} as const;

export const oracleSourceDefinition: ConnectorDefinition = {
  ...common,
  connectorType: "source",
  subCategory: "Relational Database",
  documentationUrl: "https://node-oracledb.readthedocs.io/en/latest/user_guide/sql_execution.html",
  supportsQuery: true,
};

export const oracleDestinationDefinition: ConnectorDefinition = {
  ...common,
  connectorType: "destination",
  documentationUrl: "https://node-oracledb.readthedocs.io/en/latest/user_guide/batch_statement.html",
  writeModes: WRITE_MODES,
};

// The Redshift source's definition: the reference's settings (host, port as a string, database,
// schema, credentials) unchanged, plus our optional SSL mode and timeouts.
import { JSON_SCHEMA_DRAFT, serverPortField, SQL_TIMEOUT_FIELDS } from "../shared/spec";
import type { ConnectorDefinition, JsonSchema, Row } from "../types";

export const redshiftConnectionSpecification: JsonSchema = {
  $schema: JSON_SCHEMA_DRAFT,
  title: "Amazon Redshift",
  type: "object",
  required: ["host", "port", "database", "schema"],
  properties: {
    credentials: {
      type: "object",
      title: "Credentials",
      description: "The database user to read as; it needs SELECT on the tables the models read.",
      required: ["auth_type", "username", "password"],
      order: 0,
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
        username: {
          type: "string",
          title: "Username",
          description: "Redshift user name.",
          minLength: 1,
          order: 1,
        },
        password: {
          type: "string",
          title: "Password",
          description: "Password of the user.",
          secret: true,
          multiwoven_secret: true,
          order: 2,
        },
      },
    },
    host: {
      type: "string",
      title: "Host",
      description:
        "The cluster's endpoint without port and database, e.g. examplecluster.abc123.us-west-2.redshift.amazonaws.com.",
      minLength: 1,
      order: 1,
    },
    port: { ...serverPortField(5439, 2), default: "5439" },
    database: {
      type: "string",
      title: "Database",
      description: "Name of the database to connect to.",
      minLength: 1,
      order: 3,
    },
    schema: {
      type: "string",
      title: "Schema",
      description: "Schema whose tables and views are discovered.",
      minLength: 1,
      order: 4,
    },
    ssl_mode: {
      type: "string",
      title: "SSL mode",
      description:
        "require (default): encrypted, certificate not checked; verify-ca: certificate chain checked; verify-full: chain and host name checked; disable: plain TCP (only for a cluster that allows it).",
      enum: ["require", "verify-ca", "verify-full", "disable"],
      default: "require",
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
      message:
        'credentials is required: add {"auth_type": "username/password", "username": …, "password": …}',
    },
  ];
}

export const redshiftSourceDefinition: ConnectorDefinition = {
  name: "Redshift",
  title: "Amazon Redshift",
  connectorType: "source",
  category: "Data Warehouse",
  subCategory: "Relational Database",
  icon: "/icons/redshift.svg",
  documentationUrl: "https://docs.aws.amazon.com/redshift/latest/mgmt/connecting-to-cluster.html",
  connectionSpecification: redshiftConnectionSpecification,
  secretTargetFields: ["host", "port", "database", "ssl_mode"],
  streamType: "dynamic",
  supportsQuery: true,
  configurationProblems,
};

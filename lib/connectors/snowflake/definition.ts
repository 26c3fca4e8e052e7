import { JSON_SCHEMA_DRAFT } from "../shared/spec";
import type { ConnectorDefinition, Row } from "../types";

export const SNOWFLAKE_AUTH_TYPES = ["username/password", "key_pair"] as const;

export const snowflakeSourceDefinition: ConnectorDefinition = {
  name: "Snowflake",
  title: "Snowflake",
  connectorType: "source",
  category: "Data Warehouse",
  subCategory: "Relational Database",
  icon: "/icons/snowflake.svg",
  documentationUrl: "https://docs.snowflake.com/en/developer-guide/sql-api/index",
  streamType: "dynamic",
  supportsQuery: true,
  // The credential goes to the account's API: a new host or API URL needs it entered again.
  secretTargetFields: ["host", "base_url"],
  connectionSpecification: {
    $schema: JSON_SCHEMA_DRAFT,
    title: "Snowflake",
    type: "object",
    required: ["host", "role", "warehouse", "database"],
    properties: {
      credentials: {
        type: "object",
        title: "Credentials",
        description:
          "How to sign in through Snowflake's SQL API. It takes no plain password: with username/password, put a programmatic access token (PAT) of the user in the password field; or choose key_pair and give the user's private key.",
        required: ["auth_type", "username"],
        order: 0,
        properties: {
          auth_type: {
            type: "string",
            title: "Authentication type",
            description: "username/password: the password field holds a programmatic access token. key_pair: a JWT signed with the user's RSA private key.",
            enum: [...SNOWFLAKE_AUTH_TYPES],
            default: "username/password",
            order: 0,
          },
          username: { type: "string", title: "Username", description: "The Snowflake user the service signs in as.", minLength: 1, order: 1 },
          password: {
            type: "string",
            title: "Password (programmatic access token)",
            description: "A programmatic access token of the user (Snowflake's SQL API refuses plain passwords). Used with username/password.",
            secret: true,
            multiwoven_secret: true,
            order: 2,
          },
          private_key: {
            type: "string",
            title: "Private key",
            description: "The user's RSA private key in PEM (PKCS#8, `-----BEGIN PRIVATE KEY-----`), whose public key is set on the user. Used with key_pair.",
            secret: true,
            multiwoven_secret: true,
            multiline: true,
            order: 3,
          },
          private_key_passphrase: {
            type: "string",
            title: "Private key passphrase",
            description: "Only for an encrypted private key (`-----BEGIN ENCRYPTED PRIVATE KEY-----`).",
            secret: true,
            multiwoven_secret: true,
            order: 4,
          },
        },
      },
      host: {
        type: "string",
        title: "Account host",
        description: "The account's host name, `<account identifier>.snowflakecomputing.com` (for example `myorg-myaccount.snowflakecomputing.com`).",
        minLength: 1,
        order: 1,
      },
      role: { type: "string", title: "Role", description: "Role the statements run with; give it read access to the models' tables only.", minLength: 1, order: 2 },
      warehouse: { type: "string", title: "Warehouse", description: "Virtual warehouse that runs the statements.", minLength: 1, order: 3 },
      database: { type: "string", title: "Database", description: "Database the statements run in and whose tables are discovered.", minLength: 1, order: 4 },
      schema: {
        type: "string",
        title: "Schema",
        description: "Schema whose tables are discovered (and the statements' default). Empty: every schema of the database.",
        order: 5,
      },
      jdbc_url_params: {
        type: "string",
        title: "JDBC URL parameters",
        description: "Accepted for compatibility and not used: this connector talks to the SQL API, not JDBC.",
        order: 6,
      },
      query_timeout: {
        type: "integer",
        title: "Query timeout (seconds)",
        description: "Longest a statement may run in Snowflake (its statement timeout); past it the statement is cancelled.",
        minimum: 1,
        maximum: 86400,
        default: 300,
        order: 7,
      },
      request_timeout: {
        type: "integer",
        title: "Request timeout (seconds)",
        description: "Longest one call to the SQL API (a status poll, a result partition) may take.",
        minimum: 1,
        maximum: 600,
        default: 60,
        order: 8,
      },
      base_url: {
        type: "string",
        title: "API base URL (advanced)",
        description: "Overrides `https://<host>` for the SQL API (a private link URL, or a test emulator). Leave empty normally.",
        order: 9,
      },
    },
  },
  configurationProblems: (config: Row) => {
    // Without credentials the reference's settings still save (its spec does not require them); check says what is missing.
    if (config.credentials === undefined) return [];
    const credentials = (config.credentials ?? {}) as Row;
    const type = credentials.auth_type ?? "username/password";
    if (type === "key_pair" && !credentials.private_key) {
      return [{ path: "credentials.private_key", message: "is required with key_pair authentication: paste the user's RSA private key (PEM)." }];
    }
    if (type === "username/password" && !credentials.password) {
      return [{ path: "credentials.password", message: "is required: put a programmatic access token of the user here (Snowflake's SQL API takes no plain password)." }];
    }
    return [];
  },
};

import { JSON_SCHEMA_DRAFT, SQL_TIMEOUT_FIELDS } from "../shared/spec";
import type { ConnectorDefinition } from "../types";
import { urlProblems } from "./config";

/** The reference's four required fields (same names), plus our optional timeouts. */
export const clickhouseSourceDefinition: ConnectorDefinition = {
  name: "Clickhouse",
  title: "ClickHouse",
  connectorType: "source",
  category: "Data Warehouse",
  subCategory: "Relational Database",
  icon: "/icons/clickhouse.svg",
  documentationUrl: "https://clickhouse.com/docs/en/interfaces/http",
  streamType: "dynamic",
  supportsQuery: true,
  secretTargetFields: ["url"],
  connectionSpecification: {
    $schema: JSON_SCHEMA_DRAFT,
    title: "ClickHouse",
    type: "object",
    required: ["url", "username", "password", "database"],
    properties: {
      url: {
        type: "string",
        title: "Personal URL",
        description:
          "Address of the server's HTTP interface: https://host:8443 (ClickHouse Cloud), http://host:8123, or a bare host name (a *.clickhouse.cloud host gets https on 8443, any other http on 8123).",
        minLength: 1,
        examples: ["https://abc123.us-west-2.aws.clickhouse.cloud:8443"],
        order: 0,
      },
      username: { type: "string", title: "Username", description: "ClickHouse user to connect as.", minLength: 1, examples: ["default"], order: 1 },
      password: {
        type: "string",
        title: "Password",
        description: "Password of the user.",
        secret: true,
        multiwoven_secret: true,
        order: 2,
      },
      database: {
        type: "string",
        title: "Database",
        description: "Database whose tables are discovered; model queries name its tables without a prefix.",
        minLength: 1,
        examples: ["default"],
        order: 3,
      },
      ...SQL_TIMEOUT_FIELDS,
    },
  },
  configurationProblems: (config) => urlProblems(config.url),
};

// The WatsonxData source's definition: the reference's settings unchanged (api_key, region, engine,
// engine_id, auth_instance_id, database, schema, config.timeout), plus optional fields of ours: the
// IAM and API addresses (for private endpoints and the tests' emulator) and the row cap of a read.
import { JSON_SCHEMA_DRAFT } from "../shared/spec";
import type { ConnectorDefinition, JsonSchema, Row } from "../types";

export const DEFAULT_MAX_ROWS = 100_000;
/** Longest config.timeout: one request held open for more than an hour is a stuck one. */
export const MAX_TIMEOUT_SECONDS = 3600;

export const watsonxDataConnectionSpecification: JsonSchema = {
  $schema: JSON_SCHEMA_DRAFT,
  title: "IBM watsonx.data",
  type: "object",
  required: ["api_key", "region", "engine", "engine_id", "auth_instance_id", "database", "schema"],
  properties: {
    api_key: {
      type: "string",
      title: "API key",
      description:
        "An IBM Cloud API key (of a user or a service ID) with access to the watsonx.data instance; exchanged for an IAM token.",
      minLength: 1,
      secret: true,
      multiwoven_secret: true,
      order: 0,
    },
    region: {
      type: "string",
      title: "Region",
      description: "The IBM Cloud region of the instance, e.g. us-south or eu-de.",
      pattern: "^[a-z0-9][a-z0-9-]*$",
      order: 1,
    },
    engine: {
      type: "string",
      title: "Engine",
      description: "The query engine the SQL runs on. Presto is the one supported.",
      enum: ["presto"],
      default: "presto",
      order: 2,
    },
    engine_id: {
      type: "string",
      title: "Engine ID",
      description: "The Presto engine's id, as the instance's Infrastructure manager shows it.",
      minLength: 1,
      order: 3,
    },
    auth_instance_id: {
      type: "string",
      title: "Instance CRN",
      description: "The watsonx.data instance's CRN, sent as AuthInstanceId with every query.",
      minLength: 1,
      order: 4,
    },
    database: {
      type: "string",
      title: "Catalog",
      description: "The catalog the queries run in (Presto's catalog).",
      minLength: 1,
      order: 5,
    },
    schema: {
      type: "string",
      title: "Schema",
      description: "The schema whose tables are discovered and that unqualified names refer to.",
      minLength: 1,
      order: 6,
    },
    config: {
      type: "object",
      title: "Request settings",
      description: "How long to wait for watsonx.data.",
      order: 7,
      properties: {
        timeout: {
          type: "string",
          title: "HTTP timeout (seconds)",
          description:
            "Longest wait for one answer (a token or a query's result) before the request is abandoned; at most 3600.",
          pattern: "^[0-9]+(\\.[0-9]+)?$",
          default: "30",
          order: 0,
        },
      },
    },
    max_rows: {
      type: "integer",
      title: "Most rows per read",
      description:
        "The query API answers a query's whole result at once, so a read takes at most this many rows and fails beyond it (use an incremental sync or narrow the model).",
      minimum: 1,
      maximum: 1_000_000,
      default: DEFAULT_MAX_ROWS,
      order: 8,
    },
    api_url: {
      type: "string",
      title: "API address",
      description:
        "The watsonx.data API's base address; empty: https://<region>.lakehouse.cloud.ibm.com/lakehouse/api/v2.",
      format: "uri",
      pattern: "^https?://",
      order: 9,
    },
    iam_url: {
      type: "string",
      title: "IAM token address",
      description:
        "Where the API key is exchanged for a token; empty: https://iam.cloud.ibm.com/identity/token.",
      format: "uri",
      pattern: "^https?://",
      order: 10,
    },
  },
};

export const watsonxDataSourceDefinition: ConnectorDefinition = {
  name: "WatsonxData",
  title: "IBM watsonx.data",
  connectorType: "source",
  category: "Data Warehouse",
  subCategory: "Relational Database",
  icon: "/icons/watsonx-data.svg",
  documentationUrl: "https://cloud.ibm.com/apidocs/watsonxdata",
  connectionSpecification: watsonxDataConnectionSpecification,
  // The API key goes to the IAM address; the token it buys goes to the API (named by the region).
  secretTargetFields: ["region", "api_url", "iam_url"],
  streamType: "dynamic",
  supportsQuery: true,
  configurationProblems: (config: Row) => {
    const problem = timeoutProblem(config);
    return problem ? [{ path: "config.timeout", message: problem }] : [];
  },
};

/** config.timeout is a string of digits (the reference's type): its value is bounded here. */
export function timeoutProblem(config: Row): string | undefined {
  const settings = config.config;
  if (typeof settings !== "object" || settings === null) return undefined;
  const raw = (settings as Row).timeout;
  if (raw === undefined || raw === null || raw === "") return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds) && seconds <= MAX_TIMEOUT_SECONDS) return undefined;
  return `config.timeout is ${String(raw).slice(0, 20)} seconds: use at most ${MAX_TIMEOUT_SECONDS} (one hour).`;
}

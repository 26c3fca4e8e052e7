// The BigQuery source's definition and its one typed configuration. The specification accepts the
// reference's configuration unchanged (project_id, dataset_id, credentials_json: the service
// account's JSON key); our extra fields (location, query_timeout, api_base_url) are optional.
import type { ConnectorDefinition, JsonSchema, Row } from "../types";
import { ConnectorError } from "../shared/errors";
import { JSON_SCHEMA_DRAFT } from "../shared/spec";

export const BIGQUERY_API = "https://bigquery.googleapis.com";

const keyField = (title: string, description: string, extra: Row = {}) => ({ type: "string", title, description, ...extra });

export const bigquerySpecification: JsonSchema = {
  $schema: JSON_SCHEMA_DRAFT,
  title: "Google BigQuery",
  type: "object",
  required: ["project_id", "credentials_json"],
  properties: {
    project_id: { type: "string", title: "Project ID", description: "Google Cloud project that runs the query jobs (and is billed for them).", order: 0 },
    dataset_id: {
      type: "string",
      title: "Default Dataset ID",
      description: "Dataset whose tables discovery lists and unqualified table names in models refer to. Empty: discovery lists every dataset of the project.",
      order: 1,
    },
    credentials_json: {
      type: "object",
      title: "Service account key",
      description: "The service account's JSON key file (IAM → Service Accounts → Keys → Add key → JSON). It needs the BigQuery Job User and Data Viewer roles.",
      order: 2,
      properties: {
        type: keyField("Type", "Always service_account.", { enum: ["service_account"] }),
        project_id: keyField("Key project", "Project the service account belongs to."),
        private_key_id: keyField("Private key id", "Id of the key."),
        private_key: keyField("Private key", "PEM private key of the service account; it signs token requests and is never sent.", { secret: true, multiwoven_secret: true }),
        client_email: keyField("Client email", "The service account's email address.", { format: "email" }),
        client_id: keyField("Client id", "The service account's numeric id."),
        auth_uri: keyField("Auth URI", "Google's OAuth authorization endpoint.", { format: "uri" }),
        token_uri: keyField("Token URI", "Where the signed assertion is exchanged for an access token.", { format: "uri" }),
        auth_provider_x509_cert_url: keyField("Auth provider certificates URL", "Google's OAuth certificates.", { format: "uri" }),
        client_x509_cert_url: keyField("Client certificate URL", "The service account's public certificates.", { format: "uri" }),
        universe_domain: keyField("Universe domain", "googleapis.com for Google Cloud."),
      },
      required: [
        "type",
        "project_id",
        "private_key_id",
        "private_key",
        "client_email",
        "client_id",
        "auth_uri",
        "token_uri",
        "auth_provider_x509_cert_url",
        "client_x509_cert_url",
        "universe_domain",
      ],
    },
    location: { type: "string", title: "Location", description: "Where the jobs run (US, EU, europe-west1…). Empty: BigQuery picks the dataset's location.", order: 3 },
    query_timeout: {
      type: "integer",
      title: "Query timeout (seconds)",
      description: "Longest a query job may run (its job timeout) and longest a wait for one page of results.",
      minimum: 1,
      maximum: 21600,
      default: 300,
      order: 4,
    },
    api_base_url: {
      type: "string",
      title: "API base URL",
      description: "BigQuery REST API root; change it only for a private endpoint or a test emulator.",
      format: "uri",
      default: BIGQUERY_API,
      order: 5,
    },
  },
};

export const bigquerySourceDefinition: ConnectorDefinition = {
  name: "Bigquery",
  title: "Google BigQuery",
  connectorType: "source",
  category: "Data Warehouse",
  subCategory: "Relational Database",
  icon: "/icons/bigquery.svg",
  documentationUrl: "https://cloud.google.com/bigquery/docs/reference/rest",
  connectionSpecification: bigquerySpecification,
  // The access token goes to the API, the signed assertion to the token endpoint.
  secretTargetFields: ["api_base_url", "credentials_json.token_uri"],
  streamType: "dynamic",
  supportsQuery: true,
};

/** The configuration, typed: what the adapter reads, never the raw object. */
export interface BigquerySettings {
  projectId: string;
  datasetId?: string;
  location?: string;
  queryTimeoutMs: number;
  apiBase: string;
  /** The key, its private_key with real line breaks (keys pasted through some tools carry `\n` text). */
  key: { client_email: string; private_key: string; token_uri: string };
}

const PROJECT = /^[a-z0-9.:-]{1,128}$/i;
const DATASET = /^[A-Za-z0-9_]{1,1024}$/;

export function bigquerySettings(config: Row): BigquerySettings {
  const text = (v: unknown) => (typeof v === "string" && v.trim() !== "" ? v.trim() : undefined);
  const projectId = text(config.project_id);
  if (!projectId || !PROJECT.test(projectId)) throw new ConnectorError("project_id must be a Google Cloud project id (letters, digits, dashes).");
  const datasetId = text(config.dataset_id);
  if (datasetId !== undefined && !DATASET.test(datasetId)) throw new ConnectorError("dataset_id may hold only letters, digits and underscores.");
  const location = text(config.location);
  if (location !== undefined && !/^[A-Za-z0-9-]{1,64}$/.test(location)) throw new ConnectorError("location must be a BigQuery location such as US, EU or europe-west1.");
  const raw = config.credentials_json;
  const key = (typeof raw === "string" ? safeParse(raw) : raw) as Record<string, unknown> | undefined;
  const email = text(key?.client_email);
  const privateKey = text(key?.private_key);
  const tokenUri = text(key?.token_uri);
  if (!email || !privateKey || !tokenUri || !/^https?:\/\//.test(tokenUri)) {
    throw new ConnectorError("credentials_json needs client_email, private_key and token_uri: paste the service account's whole JSON key file.");
  }
  const timeout = Number(config.query_timeout ?? 300);
  const apiBase = (text(config.api_base_url) ?? BIGQUERY_API).replace(/\/+$/, "");
  if (!/^https?:\/\//.test(apiBase)) throw new ConnectorError("api_base_url must be an http(s) URL.");
  return {
    projectId,
    datasetId,
    location,
    queryTimeoutMs: Math.max(1, Number.isFinite(timeout) ? timeout : 300) * 1000,
    apiBase,
    key: { client_email: email, private_key: privateKey.includes("\\n") ? privateKey.replace(/\\n/g, "\n") : privateKey, token_uri: tokenUri },
  };
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ConnectorError("credentials_json is not valid JSON: paste the service account's whole key file.");
  }
}

// The GoogleDrive source definition: the reference's settings (data_type, a service account key,
// folder_name) plus optional fields of ours (the API's base URL, timeouts, the content cap).
import { JSON_SCHEMA_DRAFT } from "../shared/spec";
import type { ConfigurationProblem, ConnectorDefinition, JsonSchema, Row } from "../types";

const keyField = (title: string, description: string, extra: Record<string, unknown> = {}) => ({ type: "string", title, description, ...extra });
const secretKeyField = (title: string, description: string, extra: Record<string, unknown> = {}) =>
  keyField(title, description, { secret: true, multiwoven_secret: true, ...extra });

const specification: JsonSchema = {
  $schema: JSON_SCHEMA_DRAFT,
  title: "GoogleDrive",
  type: "object",
  required: ["credentials_json"],
  properties: {
    data_type: {
      type: "string",
      title: "Data format type",
      description:
        "structured: the folder's CSV, JSON lines and Parquet files (and Google Sheets, as CSV) are tables a SQL model reads; unstructured: one row per file with its content. Semi-structured extraction is not available. Empty means structured.",
      oneOf: [
        { const: "structured", title: "Tables & Records (Structured)" },
        { const: "unstructured", title: "Documents & Files (Unstructured)" },
        { const: "semistructured", title: "Invoices, Receipts, Tables, Forms (Semi-structured)" },
      ],
      order: 0,
    },
    credentials_json: {
      type: "object",
      title: "Service account key",
      description: "The service account's JSON key (Google Cloud console: IAM, Service Accounts, Keys, Add key, JSON). Share the folder with its client_email.",
      required: ["type", "project_id", "private_key_id", "private_key", "client_email", "client_id", "auth_uri", "token_uri", "auth_provider_x509_cert_url", "client_x509_cert_url", "universe_domain"],
      order: 1,
      properties: {
        type: keyField("Type", "Always service_account.", { enum: ["service_account"] }),
        project_id: keyField("Project id", "The Google Cloud project of the service account."),
        private_key_id: secretKeyField("Private key id", "Id of the key."),
        private_key: secretKeyField("Private key", "The PEM private key the token requests are signed with.", { multiline: true }),
        client_email: keyField("Client email", "The service account's address; share the folder with it.", { format: "email" }),
        client_id: secretKeyField("Client id", "The service account's numeric id."),
        auth_uri: keyField("Auth URI", "Google's authorization endpoint (not used by a service account)."),
        token_uri: keyField("Token URI", "Where signed assertions are exchanged for access tokens."),
        auth_provider_x509_cert_url: keyField("Auth provider certificates URL", "Google's certificate list."),
        client_x509_cert_url: keyField("Client certificate URL", "The service account's certificate list.", { format: "uri" }),
        universe_domain: keyField("Universe domain", "googleapis.com for Google Cloud."),
      },
    },
    folder_name: {
      type: "string",
      title: "Folder name",
      description: "Name of the Drive folder whose files are read (the first folder of that name the service account can see).",
      order: 2,
    },
    base_url: {
      type: "string",
      title: "API base URL",
      description: "Optional: where the Drive API answers (default https://www.googleapis.com).",
      format: "uri",
      order: 20,
    },
    timeout: { type: "integer", title: "Request timeout (seconds)", description: "Longest one API request may take.", minimum: 1, maximum: 300, default: 60, order: 21 },
    query_timeout: { type: "integer", title: "Query timeout (seconds)", description: "Structured: longest a preview, or the wait for one batch of a read, may take.", minimum: 1, maximum: 86400, default: 60, order: 22 },
    memory_limit_mb: { type: "integer", title: "Memory limit (MiB)", description: "Structured: most memory DuckDB may use for one query.", minimum: 64, maximum: 1024, default: 256, order: 23 },
    max_content_kb: {
      type: "integer",
      title: "Largest content (KiB)",
      description: "Unstructured: a file larger than this is listed without its content.",
      minimum: 1,
      maximum: 10240,
      default: 1024,
      order: 24,
    },
  },
};

function problems(config: Row): ConfigurationProblem[] {
  const out: ConfigurationProblem[] = [];
  if (config.data_type === "semistructured") {
    out.push({ path: "data_type", message: "semistructured needs a document extraction model, which this server does not have: choose structured (tables) or unstructured (one row per file)" });
  }
  return out;
}

export const googleDriveSourceDefinition: ConnectorDefinition = {
  name: "GoogleDrive",
  title: "Google Drive",
  connectorType: "source",
  category: "File Storage",
  icon: "/icons/google-drive.svg",
  documentationUrl: "https://developers.google.com/workspace/drive/api/reference/rest/v3",
  connectionSpecification: specification,
  secretTargetFields: ["base_url", "credentials_json.token_uri", "credentials_json.client_email"],
  streamType: "dynamic",
  supportsQuery: true,
  configurationProblems: problems,
};

// The typed settings of the GoogleDrive source, read once from a configuration the API validated
// against definition.ts.
import type { Row } from "../types";
import { numberField, optionalString } from "../shared/config";
import { ConnectorError } from "../shared/errors";

export interface GoogleDriveConfig {
  dataType: "structured" | "unstructured";
  folderName: string;
  timeoutMs: number;
  maxContentBytes: number;
  /** DuckDB's limits for structured reads (files/query.ts DuckLimits). */
  limits: { query_timeout: number; memory_limit_mb: number };
}

export function googleDriveConfig(config: Row): GoogleDriveConfig {
  const dataType = config.data_type ?? "structured";
  if (dataType === "semistructured") {
    throw new ConnectorError("data_type semistructured needs a document extraction model, which this server does not have: choose structured or unstructured.");
  }
  if (dataType !== "structured" && dataType !== "unstructured") throw new ConnectorError(`data_type "${String(dataType)}" is not one of structured, unstructured.`);
  const folderName = optionalString(config, "folder_name")?.trim();
  if (!folderName) throw new ConnectorError("folder_name is required: name the Drive folder to read, shared with the service account.");
  const credentials = config.credentials_json;
  if (!credentials || typeof credentials !== "object") throw new ConnectorError("credentials_json must be the service account's JSON key.");
  return {
    dataType,
    folderName,
    timeoutMs: numberField(config, "timeout", 60) * 1000,
    maxContentBytes: numberField(config, "max_content_kb", 1024) * 1024,
    limits: { query_timeout: numberField(config, "query_timeout", 60), memory_limit_mb: numberField(config, "memory_limit_mb", 256) },
  };
}

// The WatsonxData source's typed settings, read from its specification's fields.
import type { Row } from "../types";
import { ConnectorError } from "../shared/errors";
import { numberField, objectField, optionalString, stringField } from "../shared/config";
import { DEFAULT_MAX_ROWS, timeoutProblem } from "./definition";

export const IBM_IAM_TOKEN_URL = "https://iam.cloud.ibm.com/identity/token";

export interface WatsonxSettings {
  apiKey: string;
  region: string;
  engine: "presto";
  engineId: string;
  authInstanceId: string;
  /** Presto catalog. */
  database: string;
  schema: string;
  timeoutMs: number;
  maxRows: number;
  /** Base of the v2 API, without a trailing slash. */
  apiUrl: string;
  iamUrl: string;
}

export function watsonxSettings(config: Row): WatsonxSettings {
  const region = stringField(config, "region");
  // The region becomes part of a host name: nothing but a region's letters may get there.
  if (!/^[a-z0-9][a-z0-9-]*$/.test(region))
    throw new ConnectorError(`"${region}" is not a region name (e.g. us-south).`);
  const engine = stringField(config, "engine", "presto");
  if (engine !== "presto") throw new ConnectorError(`Engine "${engine}" is not supported: use "presto".`);
  const tooLong = timeoutProblem(config);
  if (tooLong) throw new ConnectorError(tooLong);
  const timeoutSeconds = numberField(objectField(config, "config"), "timeout", 30);
  const maxRows = Math.floor(numberField(config, "max_rows", DEFAULT_MAX_ROWS));
  return {
    apiKey: stringField(config, "api_key"),
    region,
    engine,
    engineId: stringField(config, "engine_id"),
    authInstanceId: stringField(config, "auth_instance_id"),
    database: stringField(config, "database"),
    schema: stringField(config, "schema"),
    timeoutMs: Math.max(1000, Math.round(timeoutSeconds * 1000)),
    maxRows: Math.max(1, maxRows),
    apiUrl: (
      optionalString(config, "api_url") ?? `https://${region}.lakehouse.cloud.ibm.com/lakehouse/api/v2`
    ).replace(/\/+$/, ""),
    iamUrl: optionalString(config, "iam_url") ?? IBM_IAM_TOKEN_URL,
  };
}

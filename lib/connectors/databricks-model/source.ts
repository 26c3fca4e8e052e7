// DatabricksModel source: one serving endpoint query (POST /serving-endpoints/<endpoint>/invocations,
// Bearer token) per input row. Foundation and external model endpoints answer in the chat completions
// format (the `completion` column takes the reply); custom models answer {"predictions": …}.
// The check reads the endpoint's state (GET /api/2.0/serving-endpoints/<endpoint>).
import type { Row } from "../types";
import { optionalString, stringField } from "../shared/config";
import { ConnectorError } from "../shared/errors";
import { baseUrl } from "../model-kit/formats";
import { assembleChatCompletion, chatText } from "../model-kit/chat-completions";
import { callModel, type ModelCall } from "../model-kit/http";
import { kitSettings, type KitSettings } from "../model-kit/settings";
import { makeModelSource } from "../model-kit/source";
import { databricksModelSourceDefinition } from "./definition";

interface DatabricksModelSettings extends KitSettings {
  workspaceUrl: string;
  token: string;
  endpoint: string;
}

const HOST = /^[A-Za-z0-9.-]+(:\d+)?$/;

function settings(config: Row): DatabricksModelSettings {
  // A host typed with its scheme or a trailing slash is still the host.
  const host = stringField(config, "databricks_host").trim().replace(/^https?:\/\//i, "").replace(/\/+$/, "");
  if (!HOST.test(host)) throw new ConnectorError(`"databricks_host" must be the workspace's host name, e.g. dbc-a1b2c3d4-e5f6.cloud.databricks.com.`);
  const endpoint = stringField(config, "endpoint").trim();
  if (!/^[A-Za-z0-9_.-]+$/.test(endpoint)) throw new ConnectorError(`"endpoint" must be a serving endpoint's name (letters, digits, -, _ and .).`);
  return {
    ...kitSettings(config),
    workspaceUrl: baseUrl(optionalString(config, "base_url") ?? `https://${host}`, "base_url"),
    token: stringField(config, "token"),
    endpoint,
  };
}

const call = (s: DatabricksModelSettings, method: "GET" | "POST", path: string, body?: unknown): ModelCall => ({
  vendor: "Databricks",
  method,
  url: `${s.workspaceUrl}${path}`,
  headers: { authorization: `Bearer ${s.token}` },
  secretHeaders: ["authorization"],
  body,
  budget: ["databricks-model", s.workspaceUrl, s.endpoint, s.token],
});

async function predict(s: DatabricksModelSettings, body: unknown, signal?: AbortSignal): Promise<unknown> {
  const answer = await callModel(s, call(s, "POST", `/serving-endpoints/${s.endpoint}/invocations`, body), signal);
  // A request_format that asks for a stream gets chat completion chunks: assembled likewise.
  return answer.events ? assembleChatCompletion(answer.events) : answer.json;
}

async function check(s: DatabricksModelSettings, signal?: AbortSignal): Promise<string> {
  const answer = await callModel({ ...s, maxRetries: Math.min(s.maxRetries, 1) }, call(s, "GET", `/api/2.0/serving-endpoints/${s.endpoint}`), signal);
  const state = ((answer.json as Row | undefined)?.state ?? {}) as Row;
  if (state.ready !== "READY") {
    throw new ConnectorError(`The serving endpoint "${s.endpoint}" is not ready (state ${String(state.ready ?? "unknown")}, config ${String(state.config_update ?? "unknown")}).`);
  }
  return `Connected to Databricks: the serving endpoint "${s.endpoint}" is ready.`;
}

export const databricksModelSource = makeModelSource<DatabricksModelSettings>({
  definition: databricksModelSourceDefinition,
  settings,
  predict,
  completion: chatText,
  check,
  endpoint: (s) => `${s.workspaceUrl}/serving-endpoints/${s.endpoint}/invocations`,
});

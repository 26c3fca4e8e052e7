// WatsonxAi source: one call per input row to a watsonx.ai deployment, with a bearer token from IBM
// Cloud IAM (watsonx-data/iam.ts: cached, renewed before expiry, renewed once on a 401).
// Machine learning model: POST /ml/v4/deployments/<id>/predictions. Prompt template: POST
// /ml/v1/deployments/<id>/text/generation, or text/generation_stream with is_stream, whose events
// (each a slice of generated_text) are assembled into the answer the non-streamed call gives.
import type { Row } from "../types";
import { optionalString, stringField } from "../shared/config";
import { ConnectorError } from "../shared/errors";
import { baseUrl } from "../model-kit/formats";
import { callModel, PredictionFailed, type ModelCall } from "../model-kit/http";
import { kitSettings, type KitSettings } from "../model-kit/settings";
import { makeModelSource } from "../model-kit/source";
import { dropIamToken, iamToken } from "../watsonx-data/iam";
import { IBM_IAM_TOKEN_URL } from "../watsonx-data/config";
import { MODEL_TYPES, watsonxAiSourceDefinition } from "./definition";

/** The API version date the calls name (the `version` query parameter watsonx.ai requires). */
export const WATSONX_API_VERSION = "2021-05-01";

interface WatsonxAiSettings extends KitSettings {
  apiKey: string;
  apiUrl: string;
  iamUrl: string;
  deploymentId: string;
  promptTemplate: boolean;
}

function settings(config: Row): WatsonxAiSettings {
  const region = stringField(config, "region").trim();
  // The region becomes part of a host name: nothing but a region's letters may get there.
  if (!/^[a-z0-9][a-z0-9-]*$/.test(region)) throw new ConnectorError(`"${region.slice(0, 40)}" is not a region name (e.g. us-south).`);
  const modelType = optionalString(config, "model_type") ?? MODEL_TYPES[0];
  if (!(MODEL_TYPES as readonly string[]).includes(modelType)) throw new ConnectorError(`"model_type" must be one of: ${MODEL_TYPES.join(", ")}.`);
  return {
    ...kitSettings(config),
    apiKey: stringField(config, "api_key"),
    apiUrl: baseUrl(optionalString(config, "api_url") ?? `https://${region}.ml.cloud.ibm.com`, "api_url"),
    iamUrl: baseUrl(optionalString(config, "iam_url") ?? IBM_IAM_TOKEN_URL, "iam_url"),
    deploymentId: encodeURIComponent(stringField(config, "deployment_id").trim()),
    promptTemplate: modelType === "Prompt template",
  };
}

async function authCall(s: WatsonxAiSettings, method: "GET" | "POST", path: string, body: unknown, sse: boolean, signal?: AbortSignal): Promise<ModelCall> {
  const bearer = async () => ({ authorization: `Bearer ${await iamToken(s, signal)}` });
  return {
    vendor: "watsonx.ai",
    method,
    url: `${s.apiUrl}${path}${path.includes("?") ? "&" : "?"}version=${WATSONX_API_VERSION}`,
    headers: await bearer(),
    secretHeaders: ["authorization"],
    body,
    sse,
    budget: ["watsonx-ai", s.apiUrl, s.apiKey],
    refreshAuth: async () => {
      dropIamToken(s);
      return bearer();
    },
  };
}

interface GenerationResult {
  generated_text?: string;
  generated_token_count?: number;
  input_token_count?: number;
  stop_reason?: string;
}

/** The generation answer an event stream describes: its text slices joined, the last counts and stop reason kept. */
export function assembleGeneration(events: { event: string; data: unknown }[]): Row {
  let answer: Row = {};
  const result: GenerationResult = { generated_text: "" };
  for (const { data } of events) {
    const e = (data ?? {}) as Row;
    const errors = Array.isArray(e.errors) ? (e.errors as Row[]) : [];
    if (errors.length > 0) throw new PredictionFailed(`watsonx.ai stopped the stream: ${String(errors[0]?.message ?? errors[0]?.code ?? "an error")}`);
    const part = (Array.isArray(e.results) ? e.results[0] : undefined) as GenerationResult | undefined;
    if (!part) continue;
    answer = { ...answer, ...Object.fromEntries(Object.entries(e).filter(([k]) => k !== "results")) };
    result.generated_text += part.generated_text ?? "";
    if (part.generated_token_count !== undefined) result.generated_token_count = part.generated_token_count;
    if (part.input_token_count !== undefined) result.input_token_count = part.input_token_count;
    if (part.stop_reason !== undefined) result.stop_reason = part.stop_reason;
  }
  if (result.stop_reason === undefined) throw new PredictionFailed("watsonx.ai's stream ended without a result.");
  return { ...answer, results: [result] };
}

async function predict(s: WatsonxAiSettings, body: unknown, signal?: AbortSignal): Promise<unknown> {
  const id = s.deploymentId;
  if (!s.promptTemplate) return (await callModel(s, await authCall(s, "POST", `/ml/v4/deployments/${id}/predictions`, body, false, signal), signal)).json;
  if (!s.stream) return (await callModel(s, await authCall(s, "POST", `/ml/v1/deployments/${id}/text/generation`, body, false, signal), signal)).json;
  const answer = await callModel(s, await authCall(s, "POST", `/ml/v1/deployments/${id}/text/generation_stream`, body, true, signal), signal);
  return assembleGeneration(answer.events ?? []);
}

function completion(answer: unknown): string | undefined {
  const results = (answer as { results?: GenerationResult[] } | null)?.results;
  return Array.isArray(results) && typeof results[0]?.generated_text === "string" ? results[0].generated_text : undefined;
}

interface Deployment {
  metadata?: { id?: string; name?: string };
  entity?: { status?: { state?: string }; serving_name?: string };
}

async function check(s: WatsonxAiSettings, signal?: AbortSignal): Promise<string> {
  const call = await authCall(s, "GET", "/ml/v4/deployments", undefined, false, signal);
  const answer = await callModel({ ...s, maxRetries: Math.min(s.maxRetries, 1) }, call, signal);
  const resources = ((answer.json as { resources?: Deployment[] } | undefined)?.resources ?? []) as Deployment[];
  const id = decodeURIComponent(s.deploymentId);
  const found = resources.find((d) => d?.metadata?.id === id || d?.entity?.serving_name === id);
  if (!found) throw new ConnectorError(`watsonx.ai answered, but lists no deployment with this deployment_id among the ${resources.length} these credentials see.`);
  const state = found.entity?.status?.state ?? "unknown";
  if (state !== "ready") throw new ConnectorError(`The deployment is not ready (state ${state}).`);
  return `Connected to watsonx.ai: the deployment${found.metadata?.name ? ` "${found.metadata.name}"` : ""} is ready.`;
}

export const watsonxAiSource = makeModelSource<WatsonxAiSettings>({
  definition: watsonxAiSourceDefinition,
  settings,
  predict,
  completion,
  check,
  endpoint: (s) => `${s.apiUrl}/ml/${s.promptTemplate ? "v1" : "v4"}/deployments/<deployment_id>/${s.promptTemplate ? "text/generation" : "predictions"}`,
});

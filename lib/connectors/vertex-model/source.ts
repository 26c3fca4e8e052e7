// VertexModel source: one Vertex AI call per input row, with an access token from the service
// account's signed assertion (rest-kit/oauth.ts, scope cloud-platform; renewed once on a 401).
// Endpoints: POST v1/projects/<p>/locations/<r>/endpoints/<e>:rawPredict (the reference's call),
// :predict or :generateContent; a publisher model (endpoint_id publishers/…/models/…) :generateContent.
import type { Row } from "../types";
import { optionalString, stringField } from "../shared/config";
import { ConnectorError } from "../shared/errors";
import { accessToken, forgetAccessToken, type JwtBearer } from "../rest-kit/oauth";
import { baseUrl, renderRequest, sampleInput } from "../model-kit/formats";
import { callModel, type ModelCall } from "../model-kit/http";
import { kitSettings, type KitSettings } from "../model-kit/settings";
import { makeModelSource } from "../model-kit/source";
import { VERTEX_METHODS, vertexModelSourceDefinition } from "./definition";

const AUTH: JwtBearer = { kind: "jwt_bearer", field: "credentials_json", scope: "https://www.googleapis.com/auth/cloud-platform" };

type Method = (typeof VERTEX_METHODS)[number];

interface VertexSettings extends KitSettings {
  apiBase: string;
  /** projects/<p>/locations/<r>/endpoints/<e>, or …/publishers/<x>/models/<m>. */
  resource: string;
  publisherModel: boolean;
  method: Method;
  /** What rest-kit/oauth reads the key from: private_key with real line breaks. */
  auth: Row;
}

function settings(config: Row): VertexSettings {
  const project = stringField(config, "project_id").trim();
  const region = stringField(config, "region").trim();
  const endpoint = stringField(config, "endpoint_id").trim();
  if (!/^[a-z0-9.:-]{1,128}$/i.test(project)) throw new ConnectorError("project_id must be a Google Cloud project id.");
  // The region becomes part of a host name.
  if (!/^[a-z0-9-]{1,40}$/.test(region)) throw new ConnectorError(`"region" must be a Google Cloud region such as us-central1.`);
  const publisherModel = /^publishers\/[a-z0-9-]+\/models\/[A-Za-z0-9._@-]+$/.test(endpoint);
  if (!publisherModel && !/^[A-Za-z0-9-]{1,128}$/.test(endpoint)) throw new ConnectorError("endpoint_id must be an endpoint's id, or publishers/<publisher>/models/<model>.");
  const method = (optionalString(config, "vertex_method") ?? "rawPredict") as Method;
  if (!VERTEX_METHODS.includes(method)) throw new ConnectorError(`"vertex_method" must be one of: ${VERTEX_METHODS.join(", ")}.`);
  const raw = config.credentials_json;
  let key: Row | undefined;
  try {
    key = (typeof raw === "string" ? JSON.parse(raw) : raw) as Row | undefined;
  } catch {
    key = undefined;
  }
  const privateKey = typeof key?.private_key === "string" ? key.private_key : "";
  const host = region === "global" ? "aiplatform.googleapis.com" : `${region}-aiplatform.googleapis.com`;
  return {
    ...kitSettings(config),
    apiBase: baseUrl(optionalString(config, "api_base_url") ?? `https://${host}`, "api_base_url"),
    resource: `projects/${project}/locations/${region}/${publisherModel ? endpoint : `endpoints/${endpoint}`}`,
    publisherModel,
    method: publisherModel ? "generateContent" : method,
    auth: { credentials_json: { ...(key ?? {}), private_key: privateKey.includes("\\n") ? privateKey.replace(/\\n/g, "\n") : privateKey } },
  };
}

async function vertexCall(s: VertexSettings, method: "GET" | "POST", path: string, body?: unknown): Promise<ModelCall> {
  const bearer = async () => ({ authorization: `Bearer ${await accessToken(s.apiBase, s.auth, AUTH, s.timeoutMs, "Google")}` });
  return {
    vendor: "Vertex AI",
    method,
    url: `${s.apiBase}/v1/${path}`,
    headers: await bearer(),
    secretHeaders: ["authorization"],
    body,
    budget: ["vertex", s.apiBase, s.resource, JSON.stringify(s.auth)],
    refreshAuth: async () => {
      forgetAccessToken(s.apiBase, s.auth, AUTH);
      return bearer();
    },
  };
}

async function predict(s: VertexSettings, body: unknown, signal?: AbortSignal): Promise<unknown> {
  return (await callModel(s, await vertexCall(s, "POST", `${s.resource}:${s.method}`, body), signal)).json;
}

/** Gemini's reply text: candidates[0].content.parts[].text. */
function completion(answer: unknown): string | undefined {
  const candidates = (answer as { candidates?: { content?: { parts?: { text?: unknown }[] } }[] } | null)?.candidates;
  const parts = Array.isArray(candidates) ? candidates[0]?.content?.parts : undefined;
  if (!Array.isArray(parts)) return undefined;
  return parts.map((p) => (typeof p?.text === "string" ? p.text : "")).join("");
}

async function check(s: VertexSettings, signal?: AbortSignal): Promise<string> {
  const quick = { ...s, maxRetries: Math.min(s.maxRetries, 1) };
  if (s.publisherModel) {
    // A publisher model has no endpoint to read: a sample generation proves the key and the model.
    await callModel(quick, await vertexCall(s, "POST", `${s.resource}:generateContent`, renderRequest(s.requestTemplate, sampleInput(s.requestTemplate))), signal);
    return `Connected to Vertex AI: ${s.resource.split("/").slice(-1)[0]} answered a sample request.`;
  }
  const answer = await callModel(quick, await vertexCall(s, "GET", s.resource), signal);
  const endpoint = (answer.json ?? {}) as { displayName?: string; deployedModels?: unknown[] };
  const deployed = Array.isArray(endpoint.deployedModels) ? endpoint.deployedModels.length : 0;
  if (deployed === 0) throw new ConnectorError(`The Vertex AI endpoint${endpoint.displayName ? ` "${endpoint.displayName}"` : ""} has no model deployed.`);
  return `Connected to Vertex AI: endpoint${endpoint.displayName ? ` "${endpoint.displayName}"` : ""} with ${deployed} deployed model${deployed === 1 ? "" : "s"}.`;
}

export const vertexModelSource = makeModelSource<VertexSettings>({
  definition: vertexModelSourceDefinition,
  settings,
  predict,
  completion,
  check,
  endpoint: (s) => `${s.apiBase}/v1/${s.resource}:${s.method}`,
});

// One local server playing the model APIs of the AI Model sources, each written from its vendor's
// published API reference:
// - Anthropic Messages API (docs.anthropic.com/en/api): POST /v1/messages with x-api-key and
//   anthropic-version, the Message object, `stream: true` as server-sent events (message_start,
//   content_block_start/delta/stop, ping, message_delta, message_stop); GET /v1/models/{id};
//   errors {"type":"error","error":{"type","message"}}, 429 rate_limit_error with retry-after.
// - OpenAI chat completions (platform.openai.com/docs/api-reference/chat), as GenericOpenAI calls it:
//   POST /v1/chat/completions with a Bearer key; `stream: true` as chat.completion.chunk events and
//   `data: [DONE]`; errors {"error":{"message","type","code"}}.
// - Databricks Model Serving (docs.databricks.com/api/workspace/servingendpoints): POST
//   /serving-endpoints/{name}/invocations (chat format for foundation models, dataframe_records →
//   predictions for custom models), GET /api/2.0/serving-endpoints/{name} with state.ready; errors
//   {"error_code","message"}, 429 REQUEST_LIMIT_EXCEEDED.
// - IBM Cloud IAM (POST /identity/token, apikey grant) and watsonx.ai (cloud.ibm.com/apidocs/watsonx-ai):
//   GET /ml/v4/deployments, POST /ml/v4/deployments/{id}/predictions (input_data → predictions),
//   POST /ml/v1/deployments/{id}/text/generation and text/generation_stream (events `id`, `event:
//   message`, `data` with a slice of generated_text); every call needs ?version=; errors
//   {"errors":[{"code","message"}],"status_code"}.
// - Google OAuth (POST /token, a JWT assertion signed by the service account's key) and Vertex AI
//   (cloud.google.com/vertex-ai/docs/reference/rest): GET /v1/projects/{p}/locations/{r}/endpoints/{e},
//   POST …/endpoints/{e}:predict and :rawPredict, POST …/publishers/google/models/{m}:generateContent;
//   errors {"error":{"code","message","status"}}, 429 RESOURCE_EXHAUSTED.
// - Amazon Bedrock Runtime InvokeModel (POST /model/{modelId}/invoke) and SageMaker Runtime
//   InvokeEndpoint (POST /endpoints/{name}/invocations), SigV4-signed: the signature is recomputed
//   with the secret key (403 InvalidSignatureException otherwise); errors as x-amzn-ErrorType and
//   {"message"}: ValidationException, ThrottlingException (429), SageMaker's ModelError (424).
// The model itself is a toy: the reply to a prompt is "Echo: <prompt>"; a text containing "good" is
// positive. A prompt or text containing "REFUSE" is refused (400, or SageMaker's 424 ModelError).
// `throttleNext(n)` answers the next n model calls 429 with Retry-After: 1. Tests only.
import { createHash, createHmac, createVerify, randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";
import { SignatureV4 } from "@smithy/signature-v4";
import { json, startHttpServer, type ReceivedRequest } from "../support/connectors";

export interface AiModelsOptions {
  anthropicKey: string;
  openAiKey: string;
  databricksToken: string;
  ibmApiKey: string;
  google: { clientEmail: string; publicKey: string };
  aws: { accessKeyId: string; secretAccessKey: string; region: string };
  /** Retry-After seconds of a 429 (default 1). */
  retryAfterSeconds?: number;
}

type Row = Record<string, unknown>;

const parse = (req: ReceivedRequest): Row => {
  try {
    return JSON.parse(req.body) as Row;
  } catch {
    return {};
  }
};

const reply = (prompt: string) => `Echo: ${prompt}`;
const words = (text: string) => text.match(/\S+\s*/g) ?? [text];

/** The last user message's text, in Anthropic's and OpenAI's message shapes. */
function lastUserText(messages: unknown): string {
  if (!Array.isArray(messages)) return "";
  const user = [...messages].reverse().find((m: Row) => m?.role === "user") as Row | undefined;
  const content = user?.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((c: Row) => (typeof c?.text === "string" ? c.text : "")).join("");
  return "";
}

function sse(res: ServerResponse, events: { event?: string; id?: string; data: unknown }[]): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const e of events) {
    const lines = [e.id !== undefined ? `id: ${e.id}` : "", e.event ? `event: ${e.event}` : "", `data: ${typeof e.data === "string" ? e.data : JSON.stringify(e.data)}`];
    res.write(`${lines.filter(Boolean).join("\n")}\n\n`);
  }
  res.end();
}

const bytes = (d: string | ArrayBuffer | ArrayBufferView): string | Buffer =>
  typeof d === "string" ? d : ArrayBuffer.isView(d) ? Buffer.from(d.buffer, d.byteOffset, d.byteLength) : Buffer.from(d);

/** SHA-256 for the SigV4 signer, from node:crypto. */
class Sha256 {
  private readonly hash;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.hash = secret ? createHmac("sha256", bytes(secret)) : createHash("sha256");
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.hash.update(bytes(data));
  }
  digest(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(this.hash.digest()));
  }
}

export async function startAiModelsEmulator(options: AiModelsOptions) {
  const retryAfter = String(options.retryAfterSeconds ?? 1);
  const state = {
    throttle: 0,
    /** Model calls answered (429s included), per vendor. */
    calls: { anthropic: 0, openai: 0, databricks: 0, watsonx: 0, vertex: 0, bedrock: 0, sagemaker: 0 } as Record<string, number>,
    throttled: 0,
    ibmTokens: new Set<string>(),
    googleTokens: new Set<string>(),
    tokenRequests: 0,
    /** Databricks endpoint state, watsonx deployment state. */
    endpointReady: true,
  };
  /** Counts a model call; true when it is to be throttled. */
  const throttled = (vendor: string) => {
    state.calls[vendor] = (state.calls[vendor] ?? 0) + 1;
    if (state.throttle <= 0) return false;
    state.throttle--;
    state.throttled++;
    return true;
  };

  // Anthropic ---------------------------------------------------------------------------------
  const anthropicError = (res: ServerResponse, status: number, type: string, message: string, headers: Record<string, string> = {}) =>
    json(res, status, { type: "error", error: { type, message } }, { "request-id": `req_${randomBytes(6).toString("hex")}`, ...headers });

  function anthropic(req: ReceivedRequest, res: ServerResponse, path: string): void {
    if (req.headers["x-api-key"] !== options.anthropicKey) return anthropicError(res, 401, "authentication_error", "invalid x-api-key");
    if (!req.headers["anthropic-version"]) return anthropicError(res, 400, "invalid_request_error", "anthropic-version: header is required");
    const model = /^\/v1\/models\/(.+)$/.exec(path);
    if (req.method === "GET" && model) {
      const id = decodeURIComponent(model[1]);
      if (!id.startsWith("claude-")) return anthropicError(res, 404, "not_found_error", `model: ${id}`);
      return json(res, 200, { type: "model", id, display_name: id, created_at: "2024-10-22T00:00:00Z" });
    }
    if (req.method === "GET" && path === "/v1/models") return json(res, 200, { data: [{ type: "model", id: "claude-3-5-haiku-latest" }], has_more: false });
    if (req.method !== "POST" || path !== "/v1/messages") return anthropicError(res, 404, "not_found_error", "Not found");
    if (throttled("anthropic")) return anthropicError(res, 429, "rate_limit_error", "Number of requests has exceeded your rate limit.", { "retry-after": retryAfter });
    const body = parse(req);
    if (typeof body.model !== "string") return anthropicError(res, 400, "invalid_request_error", "model: Field required");
    if (typeof body.max_tokens !== "number") return anthropicError(res, 400, "invalid_request_error", "max_tokens: Field required");
    const prompt = lastUserText(body.messages);
    if (!prompt) return anthropicError(res, 400, "invalid_request_error", "messages: at least one user message with text content is required");
    if (prompt.includes("REFUSE")) return anthropicError(res, 400, "invalid_request_error", "messages.0.content: this prompt is refused by the emulator");
    const text = reply(prompt);
    const id = `msg_${randomBytes(8).toString("hex")}`;
    const usage = { input_tokens: Math.ceil(prompt.length / 4), output_tokens: words(text).length };
    if (body.stream !== true) {
      return json(res, 200, { id, type: "message", role: "assistant", model: body.model, content: [{ type: "text", text }], stop_reason: "end_turn", stop_sequence: null, usage });
    }
    sse(res, [
      { event: "message_start", data: { type: "message_start", message: { id, type: "message", role: "assistant", model: body.model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: usage.input_tokens, output_tokens: 1 } } } },
      { event: "content_block_start", data: { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } } },
      { event: "ping", data: { type: "ping" } },
      ...words(text).map((w) => ({ event: "content_block_delta", data: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: w } } })),
      { event: "content_block_stop", data: { type: "content_block_stop", index: 0 } },
      { event: "message_delta", data: { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: usage.output_tokens } } },
      { event: "message_stop", data: { type: "message_stop" } },
    ]);
  }

  // OpenAI-compatible chat completions (GenericOpenAI, Databricks foundation models) -------------
  function chatCompletion(res: ServerResponse, body: Row, model: string): void {
    const prompt = lastUserText(body.messages);
    const text = reply(prompt);
    const id = `chatcmpl-${randomBytes(6).toString("hex")}`;
    const created = Math.floor(Date.now() / 1000);
    const usage = { prompt_tokens: Math.ceil(prompt.length / 4), completion_tokens: words(text).length, total_tokens: Math.ceil(prompt.length / 4) + words(text).length };
    if (body.stream !== true) {
      return json(res, 200, { id, object: "chat.completion", created, model, choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }], usage });
    }
    const chunk = (delta: Row, finish: string | null) => ({ id, object: "chat.completion.chunk", created, model, choices: [{ index: 0, delta, finish_reason: finish }] });
    sse(res, [
      { data: chunk({ role: "assistant", content: "" }, null) },
      ...words(text).map((w) => ({ data: chunk({ content: w }, null) })),
      { data: chunk({}, "stop") },
      { data: "[DONE]" },
    ]);
  }

  const openAiError = (res: ServerResponse, status: number, type: string, message: string, code: string | null, headers: Record<string, string> = {}) =>
    json(res, status, { error: { message, type, param: null, code } }, headers);

  function openai(req: ReceivedRequest, res: ServerResponse): void {
    if (req.headers.authorization !== `Bearer ${options.openAiKey}`) return openAiError(res, 401, "invalid_request_error", "Incorrect API key provided.", "invalid_api_key");
    if (throttled("openai")) return openAiError(res, 429, "requests", "Rate limit reached for requests.", "rate_limit_exceeded", { "retry-after": retryAfter });
    const body = parse(req);
    if (typeof body.model !== "string") return openAiError(res, 400, "invalid_request_error", "you must provide a model parameter", null);
    if (lastUserText(body.messages).includes("REFUSE")) return openAiError(res, 400, "invalid_request_error", "This prompt is refused by the emulator.", "content_policy_violation");
    chatCompletion(res, body, body.model);
  }

  // Databricks Model Serving ----------------------------------------------------------------------
  const databricksError = (res: ServerResponse, status: number, code: string, message: string, headers: Record<string, string> = {}) => json(res, status, { error_code: code, message }, headers);

  function databricks(req: ReceivedRequest, res: ServerResponse, path: string): void {
    if (req.headers.authorization !== `Bearer ${options.databricksToken}`) return databricksError(res, 401, "UNAUTHENTICATED", "Invalid access token.");
    const info = /^\/api\/2\.0\/serving-endpoints\/([^/]+)$/.exec(path);
    if (req.method === "GET" && info) {
      if (info[1] === "missing") return databricksError(res, 404, "RESOURCE_DOES_NOT_EXIST", `Endpoint with name '${info[1]}' does not exist.`);
      return json(res, 200, { name: info[1], state: { ready: state.endpointReady ? "READY" : "NOT_READY", config_update: "NOT_UPDATING" }, task: "llm/v1/chat" });
    }
    const invoke = /^\/serving-endpoints\/([^/]+)\/invocations$/.exec(path);
    if (req.method !== "POST" || !invoke) return databricksError(res, 404, "ENDPOINT_NOT_FOUND", "No such endpoint.");
    if (throttled("databricks")) return databricksError(res, 429, "REQUEST_LIMIT_EXCEEDED", "Exceeded workspace rate limit for endpoint.", { "retry-after": retryAfter });
    const body = parse(req);
    if (Array.isArray(body.dataframe_records)) {
      const records = body.dataframe_records as Row[];
      if (records.some((r) => String(r.text ?? "").includes("REFUSE"))) return databricksError(res, 400, "BAD_REQUEST", "Model raised an exception on this input.");
      return json(res, 200, { predictions: records.map((r) => (String(r.text ?? "").includes("good") ? 1 : 0)) });
    }
    if (!Array.isArray(body.messages)) return databricksError(res, 400, "BAD_REQUEST", "Invalid input: expected messages or dataframe_records.");
    if (lastUserText(body.messages).includes("REFUSE")) return databricksError(res, 400, "BAD_REQUEST", "Input is refused by the emulator.");
    chatCompletion(res, body, invoke[1]);
  }

  // IBM Cloud IAM and watsonx.ai -----------------------------------------------------------------
  const watsonxError = (res: ServerResponse, status: number, code: string, message: string, headers: Record<string, string> = {}) =>
    json(res, status, { errors: [{ code, message }], trace: randomBytes(8).toString("hex"), status_code: status }, headers);

  function iam(req: ReceivedRequest, res: ServerResponse): void {
    state.tokenRequests++;
    const form = new URLSearchParams(req.body);
    if (form.get("grant_type") !== "urn:ibm:params:oauth:grant-type:apikey" || form.get("apikey") !== options.ibmApiKey) {
      return json(res, 400, { errorCode: "BXNIM0415E", errorMessage: "Provided API key could not be found.", context: {} });
    }
    const token = `ibm-${randomBytes(12).toString("hex")}`;
    state.ibmTokens.add(token);
    const now = Math.floor(Date.now() / 1000);
    json(res, 200, { access_token: token, refresh_token: "not_supported", token_type: "Bearer", expires_in: 3600, expiration: now + 3600 });
  }

  function watsonx(req: ReceivedRequest, res: ServerResponse, url: URL): void {
    if (!state.ibmTokens.has(String(req.headers.authorization ?? "").replace(/^Bearer /, ""))) {
      return watsonxError(res, 401, "authentication_token_not_valid", "Failed to authenticate the request due to invalid token.");
    }
    if (!url.searchParams.get("version")) return watsonxError(res, 400, "missing_version", "Missing query parameter `version`.");
    const path = url.pathname;
    if (req.method === "GET" && path === "/ml/v4/deployments") {
      const resource = (id: string, name: string) => ({ metadata: { id, name }, entity: { status: { state: state.endpointReady ? "ready" : "initializing" } } });
      return json(res, 200, { total_count: 2, resources: [resource("dep-ml-1", "churn"), resource("dep-prompt-1", "summary prompt")] });
    }
    const predict = /^\/ml\/v4\/deployments\/([^/]+)\/predictions$/.exec(path);
    const generate = /^\/ml\/v1\/deployments\/([^/]+)\/text\/(generation|generation_stream)$/.exec(path);
    if (req.method !== "POST" || (!predict && !generate)) return watsonxError(res, 404, "not_found", "Requested resource was not found.");
    if (throttled("watsonx")) return watsonxError(res, 429, "too_many_requests", "Too many requests, please retry later.", { "retry-after": retryAfter });
    const body = parse(req);
    if (predict) {
      const input = Array.isArray(body.input_data) ? (body.input_data[0] as { fields?: string[]; values?: unknown[][] }) : undefined;
      if (!input || !Array.isArray(input.values)) return watsonxError(res, 400, "invalid_input_data", "input_data must hold fields and values.");
      const texts = input.values.map((v) => String(v[input.fields?.indexOf("text") ?? 0] ?? ""));
      if (texts.some((t) => t.includes("REFUSE"))) return watsonxError(res, 400, "invalid_input_data", "The model failed to score the input.");
      return json(res, 200, { predictions: [{ fields: ["prediction", "probability"], values: texts.map((t) => (t.includes("good") ? ["positive", [0.1, 0.9]] : ["negative", [0.8, 0.2]])) }] });
    }
    const variables = ((body.parameters as Row | undefined)?.prompt_variables ?? {}) as Row;
    const prompt = Object.values(variables).map(String).join(" ") || String(body.input ?? "");
    if (!prompt) return watsonxError(res, 400, "invalid_input_argument", "The prompt variables of the template are missing.");
    if (prompt.includes("REFUSE")) return watsonxError(res, 400, "invalid_input_argument", "The input is refused by the emulator.");
    const text = reply(prompt);
    const base = { model_id: "ibm/granite-13b-instruct-v2", created_at: new Date().toISOString() };
    const input = Math.ceil(prompt.length / 4);
    if (generate![2] === "generation") {
      return json(res, 200, { ...base, results: [{ generated_text: text, generated_token_count: words(text).length, input_token_count: input, stop_reason: "eos_token" }] });
    }
    const slices = words(text);
    sse(res, [
      ...slices.map((w, i) => ({
        id: String(i + 1),
        event: "message",
        data: { ...base, results: [{ generated_text: w, generated_token_count: i + 1, input_token_count: input, stop_reason: i === slices.length - 1 ? "eos_token" : "not_finished" }] },
      })),
      { id: String(slices.length + 1), event: "close", data: "" },
    ]);
  }

  // Google OAuth and Vertex AI -------------------------------------------------------------------
  const googleError = (res: ServerResponse, code: number, status: string, message: string, headers: Record<string, string> = {}) => json(res, code, { error: { code, message, status } }, headers);

  function googleToken(req: ReceivedRequest, res: ServerResponse): void {
    state.tokenRequests++;
    const form = new URLSearchParams(req.body);
    const [header, claims, signature] = (form.get("assertion") ?? "").split(".");
    const valid =
      form.get("grant_type") === "urn:ietf:params:oauth:grant-type:jwt-bearer" &&
      !!signature &&
      createVerify("RSA-SHA256").update(`${header}.${claims}`).verify(options.google.publicKey, Buffer.from(signature, "base64url"));
    const payload = valid ? (JSON.parse(Buffer.from(claims, "base64url").toString()) as { iss?: string; exp?: number; scope?: string }) : {};
    if (!valid || payload.iss !== options.google.clientEmail || (payload.exp ?? 0) * 1000 < Date.now() || !String(payload.scope).includes("cloud-platform")) {
      return json(res, 400, { error: "invalid_grant", error_description: "Invalid JWT Signature." });
    }
    const token = `ya29.${randomBytes(12).toString("hex")}`;
    state.googleTokens.add(token);
    json(res, 200, { access_token: token, expires_in: 3599, token_type: "Bearer" });
  }

  function vertex(req: ReceivedRequest, res: ServerResponse, path: string): void {
    if (!state.googleTokens.has(String(req.headers.authorization ?? "").replace(/^Bearer /, ""))) {
      return googleError(res, 401, "UNAUTHENTICATED", "Request had invalid authentication credentials. Expected OAuth 2 access token.");
    }
    const endpoint = /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/endpoints\/([^/:]+)(?::(predict|rawPredict))?$/.exec(path);
    const publisher = /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/([^/]+)\/models\/([^/:]+):generateContent$/.exec(path);
    if (req.method === "GET" && endpoint && !endpoint[4]) {
      if (endpoint[3] === "404") return googleError(res, 404, "NOT_FOUND", `Endpoint projects/${endpoint[1]}/locations/${endpoint[2]}/endpoints/404 not found.`);
      return json(res, 200, { name: path.slice(4), displayName: "sentiment", deployedModels: [{ id: "987", model: "projects/1/locations/x/models/5" }] });
    }
    if (req.method !== "POST" || (!(endpoint && endpoint[4]) && !publisher)) return googleError(res, 404, "NOT_FOUND", "The requested URL was not found on this server.");
    if (throttled("vertex")) return googleError(res, 429, "RESOURCE_EXHAUSTED", "Quota exceeded for aiplatform.googleapis.com/online_prediction_requests_per_base_model.", { "retry-after": retryAfter });
    const body = parse(req);
    if (publisher) {
      const contents = Array.isArray(body.contents) ? (body.contents as { parts?: { text?: string }[] }[]) : [];
      const prompt = contents.flatMap((c) => c.parts ?? []).map((p) => p.text ?? "").join("");
      if (!prompt) return googleError(res, 400, "INVALID_ARGUMENT", "contents is not specified");
      if (prompt.includes("REFUSE")) return googleError(res, 400, "INVALID_ARGUMENT", "The prompt is refused by the emulator.");
      return json(res, 200, {
        candidates: [{ content: { role: "model", parts: [{ text: reply(prompt) }] }, finishReason: "STOP" }],
        usageMetadata: { promptTokenCount: Math.ceil(prompt.length / 4), candidatesTokenCount: 3 },
        modelVersion: publisher[4],
      });
    }
    const instances = body.instances;
    if (!Array.isArray(instances)) return googleError(res, 400, "INVALID_ARGUMENT", "Invalid JSON payload: instances is required.");
    const texts = instances.map((i: Row) => String(i?.text ?? ""));
    if (texts.some((t) => t.includes("REFUSE"))) return googleError(res, 400, "FAILED_PRECONDITION", "The model server failed to score an instance.");
    json(res, 200, { predictions: texts.map((t) => ({ label: t.includes("good") ? "positive" : "negative", score: t.includes("good") ? 0.9 : 0.2 })), deployedModelId: "987" });
  }

  // AWS: Bedrock Runtime and SageMaker Runtime (rest-json, SigV4) --------------------------------
  const awsError = (res: ServerResponse, status: number, type: string, message: string, extra: Row = {}, headers: Record<string, string> = {}) =>
    json(res, status, { message, ...extra }, { "x-amzn-errortype": type, "x-amzn-requestid": randomBytes(8).toString("hex"), ...headers });

  /** Recomputes the request's SigV4 signature with the secret key: the sentence of a mismatch, or undefined. */
  async function sigv4Problem(req: ReceivedRequest, service: string): Promise<string | undefined> {
    const auth = String(req.headers.authorization ?? "");
    const m = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(auth);
    if (!m) return "Missing or malformed Authorization header.";
    if (m[1] !== options.aws.accessKeyId) return "The security token included in the request is invalid.";
    if (m[3] !== options.aws.region) return `Credential should be scoped to a valid region, not '${m[3]}'.`;
    if (m[4] !== service) return `Credential should be scoped to correct service: '${service}'.`;
    const url = new URL(req.url, "http://emulator");
    const signed = m[5].split(";");
    const headers = Object.fromEntries(signed.map((h) => [h, String(req.headers[h] ?? "")]));
    const amzDate = String(req.headers["x-amz-date"] ?? "");
    const date = new Date(`${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 8)}T${amzDate.slice(9, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`);
    const signer = new SignatureV4({ credentials: { accessKeyId: options.aws.accessKeyId, secretAccessKey: options.aws.secretAccessKey }, region: options.aws.region, service, sha256: Sha256 });
    const again = await signer.sign(
      {
        method: req.method,
        protocol: "http:",
        hostname: String(req.headers.host ?? "").split(":")[0],
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers,
        body: req.body,
      },
      { signingDate: date },
    );
    const expected = /Signature=([0-9a-f]{64})/.exec(String(again.headers.authorization ?? again.headers.Authorization ?? ""))?.[1];
    return expected === m[6] ? undefined : "The request signature we calculated does not match the signature you provided.";
  }

  async function bedrock(req: ReceivedRequest, res: ServerResponse, path: string): Promise<void> {
    const problem = await sigv4Problem(req, "bedrock");
    if (problem) return awsError(res, 403, problem.includes("signature") ? "InvalidSignatureException" : "UnrecognizedClientException", problem);
    const invoke = /^\/model\/([^/]+)\/invoke$/.exec(path);
    if (req.method !== "POST" || !invoke) return awsError(res, 404, "UnknownOperationException", "Unknown operation.");
    const modelId = decodeURIComponent(invoke[1]);
    if (throttled("bedrock")) return awsError(res, 429, "ThrottlingException", "Too many requests, please wait before trying again.", {}, { "retry-after": retryAfter });
    const body = parse(req);
    if (modelId.startsWith("anthropic.") || modelId.includes(".anthropic.")) {
      if (body.anthropic_version !== "bedrock-2023-05-31") return awsError(res, 400, "ValidationException", "Malformed input request: anthropic_version is required.");
      const prompt = lastUserText(body.messages);
      if (!prompt || prompt.includes("REFUSE")) return awsError(res, 400, "ValidationException", "Malformed input request: the prompt is refused by the emulator.");
      return json(res, 200, { id: `msg_bdrk_${randomBytes(6).toString("hex")}`, type: "message", role: "assistant", model: modelId, content: [{ type: "text", text: reply(prompt) }], stop_reason: "end_turn", stop_sequence: null, usage: { input_tokens: 5, output_tokens: 3 } });
    }
    if (modelId.startsWith("mistral.")) {
      const prompt = String(body.prompt ?? "");
      if (!prompt.startsWith("<s>[INST]") || !prompt.endsWith("[/INST]")) return awsError(res, 400, "ValidationException", "Malformed input request: the prompt must be in the [INST] format.");
      if (prompt.includes("REFUSE")) return awsError(res, 400, "ValidationException", "Malformed input request: the prompt is refused by the emulator.");
      return json(res, 200, { outputs: [{ text: reply(prompt.slice(9, -7).trim()), stop_reason: "stop" }] });
    }
    return awsError(res, 400, "ValidationException", `The provided model identifier is invalid.`);
  }

  async function sagemaker(req: ReceivedRequest, res: ServerResponse, path: string): Promise<void> {
    const problem = await sigv4Problem(req, "sagemaker");
    if (problem) return awsError(res, 403, problem.includes("signature") ? "InvalidSignatureException" : "UnrecognizedClientException", problem);
    const invoke = /^\/endpoints\/([^/]+)\/invocations$/.exec(path);
    if (req.method !== "POST" || !invoke) return awsError(res, 404, "UnknownOperationException", "Unknown operation.");
    if (invoke[1] === "missing") return awsError(res, 400, "ValidationError", `Endpoint ${invoke[1]} of account 123456789012 not found.`);
    if (throttled("sagemaker")) return awsError(res, 400, "ThrottlingException", "Rate exceeded", {}, { "retry-after": retryAfter });
    const body = parse(req);
    const instances = Array.isArray(body.instances) ? (body.instances as Row[]) : undefined;
    if (!instances) return awsError(res, 424, "ModelError", "Received client error (400) from primary", { ErrorCode: "CLIENT_ERROR_FROM_MODEL", OriginalStatusCode: 400, OriginalMessage: "instances is required" });
    const texts = instances.map((i) => String(i.text ?? ""));
    if (texts.some((t) => t.includes("REFUSE"))) {
      return awsError(res, 424, "ModelError", "Received client error (400) from primary with message \"cannot score this input\".", { ErrorCode: "CLIENT_ERROR_FROM_MODEL", OriginalStatusCode: 400, OriginalMessage: "cannot score this input" });
    }
    json(res, 200, { predictions: texts.map((t) => ({ score: t.includes("good") ? 0.9 : 0.1 })) });
  }

  const server = await startHttpServer(async (req, res) => {
    const url = new URL(req.url, "http://emulator");
    const path = url.pathname;
    if (req.method === "POST" && path === "/identity/token") return iam(req, res);
    if (req.method === "POST" && path === "/token") return googleToken(req, res);
    if (path === "/v1/messages" || path.startsWith("/v1/models")) return anthropic(req, res, path);
    if (path === "/v1/chat/completions") return openai(req, res);
    if (path.startsWith("/serving-endpoints/") || path.startsWith("/api/2.0/serving-endpoints/")) return databricks(req, res, path);
    if (path.startsWith("/ml/")) return watsonx(req, res, url);
    if (path.startsWith("/v1/projects/")) return vertex(req, res, path);
    if (path.startsWith("/model/")) return bedrock(req, res, path);
    if (path.startsWith("/endpoints/")) return sagemaker(req, res, path);
    json(res, 404, { message: "No such route in the emulator." });
  });

  return {
    url: server.url,
    requests: server.requests,
    state,
    /** The next `n` model calls (any vendor) are answered 429 with Retry-After. */
    throttleNext(n: number) {
      state.throttle = n;
    },
    reset() {
      state.throttle = 0;
      state.throttled = 0;
      state.endpointReady = true;
      for (const k of Object.keys(state.calls)) state.calls[k] = 0;
      server.requests.length = 0;
    },
    close: () => server.close(),
  };
}

export type AiModelsEmulator = Awaited<ReturnType<typeof startAiModelsEmulator>>;

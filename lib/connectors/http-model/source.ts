// HttpModel source (ai_ml): runs a model behind an HTTP endpoint once per input row.
// `infer` is the primary operation; `read` takes the input rows as a JSON array in `query`
// (one object is one row) and yields the output rows in batches. Every output row has
// `prediction_error`: null, or the endpoint's reason when it refused that one row (HTTP 400, 413, 422,
// 424, or an answer that is not JSON), its outputs then null while the other rows go on. Anything else
// (credentials, 404, no answer, 429/5xx past the retries) stops the read naming the row. The call,
// its retries after Retry-After and that classification are the model kit's (model-kit/http.ts).
import type { Catalog, CheckResult, JsonSchema, ReadOptions, Row, SourceConnector } from "../types";
import { mapLimit, throwIfAborted } from "../shared/batching";
import { buildCatalog } from "../shared/catalog";
import { numberField, objectField, secondsToMs, stringField, stringMap } from "../shared/config";
import { ConnectorError, errorMessage, safeCheck } from "../shared/errors";
import type { HttpMethod } from "@/lib/net/http";
import { renderJsonTemplate } from "../shared/liquid";
import { callModel, PredictionFailed, type CallLimits } from "../model-kit/http";
import { ERROR_COLUMN } from "../model-kit/source";
import { httpModelSourceDefinition } from "./definition";

interface ModelSettings extends CallLimits {
  url: string;
  method: Extract<HttpMethod, "POST" | "PUT" | "PATCH" | "GET">;
  headers: Record<string, string>;
  requestTemplate: unknown;
  responseMap: Record<string, string>;
  /** The output_schema's fields: null on a refused row when no mapping names the outputs. */
  outputFields: string[];
  concurrency: number;
}

/**
 * The typed settings, from the reference's fields (url_host, http_method, config.timeout, a sample
 * response_format string) or ours (url, method, timeout, a response mapping object). Where both
 * name one thing, ours wins: url, method and timeout are what our form writes. A response_format
 * string is the reference's sample of an answer, shown to people, so it maps nothing.
 */
export function settings(config: Row): ModelSettings {
  const template = stringField(config, "request_format", "");
  let requestTemplate: unknown;
  if (template.trim()) {
    try {
      requestTemplate = JSON.parse(template);
    } catch (err) {
      throw new ConnectorError(`The request body template is not valid JSON: ${errorMessage(err)}.`);
    }
  }
  return {
    url: stringField(config, "url", "") || stringField(config, "url_host"),
    method: (stringField(config, "method", "") || stringField(config, "http_method", "POST")).toUpperCase() as ModelSettings["method"],
    headers: stringMap(config, "headers"),
    timeoutMs: secondsToMs(config.timeout !== undefined ? config : objectField(config, "config"), "timeout", 30),
    requestTemplate,
    responseMap: stringMap(config, "response_format"),
    outputFields: Object.keys((objectField(config, "output_schema").properties ?? {}) as Row),
    concurrency: Math.max(1, Math.floor(numberField(config, "concurrency", 4))),
    maxRetries: Math.min(10, Math.max(0, Math.floor(numberField(config, "max_retries", 3)))),
    requestsPerMinute: 0,
    tokensPerMinute: 0,
  };
}

/** `predictions.0.label` and `predictions[0].label` both work. */
export function pickPath(value: unknown, path: string): unknown {
  const segments = path.replace(/\[(\d+)\]/g, ".$1").split(".").filter(Boolean);
  let node = value;
  for (const segment of segments) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}

function outputsOf(s: ModelSettings, response: unknown): { outputs: Row; missing: string[] } {
  const entries = Object.entries(s.responseMap);
  if (entries.length === 0) {
    const outputs = response && typeof response === "object" && !Array.isArray(response) ? (response as Row) : { output: response };
    return { outputs, missing: [] };
  }
  const outputs: Row = {};
  const missing: string[] = [];
  for (const [field, path] of entries) {
    const value = pickPath(response, path);
    if (value === undefined) missing.push(`${field} ← ${path}`);
    outputs[field] = value ?? null;
  }
  return { outputs, missing };
}

async function predict(s: ModelSettings, input: Row, signal?: AbortSignal): Promise<{ outputs: Row; missing: string[] }> {
  const body = s.requestTemplate === undefined ? input : renderJsonTemplate(s.requestTemplate, { ...input, row: input });
  const get = s.method === "GET";
  const answer = await callModel(
    s,
    {
      vendor: `The model endpoint at ${new URL(s.url).host}`,
      method: s.method,
      url: get ? withQuery(s.url, body) : s.url,
      headers: s.headers,
      secretHeaders: Object.keys(s.headers).map((name) => name.toLowerCase()),
      ...(get ? {} : { body }),
      budget: [s.url, JSON.stringify(s.headers)],
      // As before the kit: an endpoint may redirect (each hop passes the outbound policy).
      followRedirects: true,
    },
    signal,
  );
  return outputsOf(s, answer.json);
}

/** A GET carries no body: the rendered request's top-level fields go as query parameters. */
function withQuery(url: string, body: unknown): string {
  if (!body || typeof body !== "object" || Array.isArray(body)) return url;
  const target = new URL(url);
  for (const [key, value] of Object.entries(body as Row)) {
    if (value !== undefined && value !== null) target.searchParams.set(key, typeof value === "object" ? JSON.stringify(value) : String(value));
  }
  return target.toString();
}

/** A refused row's outputs: the mapping's fields, else the output schema's, all null. */
function nullOutputs(s: ModelSettings): Row {
  const fields = Object.keys(s.responseMap).length > 0 ? Object.keys(s.responseMap) : s.outputFields;
  return Object.fromEntries(fields.map((name) => [name, null]));
}

/** One output row per input: the input's fields plus the model's outputs (outputs win on a clash). */
async function infer(config: Row, inputs: Row[], signal?: AbortSignal): Promise<Row[]> {
  const s = settings(config);
  return mapLimit(inputs, s.concurrency, async (input, index) => {
    throwIfAborted(signal);
    try {
      const { outputs } = await predict(s, input, signal);
      return { ...input, ...outputs, [ERROR_COLUMN]: null };
    } catch (err) {
      if (err instanceof PredictionFailed) return { ...input, ...nullOutputs(s), [ERROR_COLUMN]: err.message };
      throw new ConnectorError(`Input row ${index + 1}: ${errorMessage(err)}`, (err as ConnectorError).code);
    }
  });
}

function parseInputs(query: string): Row[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(query);
  } catch {
    throw new ConnectorError('HttpModel reads take the input rows as a JSON array in the query, e.g. [{"text": "hello"}].');
  }
  const rows = Array.isArray(parsed) ? parsed : [parsed];
  if (!rows.every((r) => r !== null && typeof r === "object" && !Array.isArray(r))) {
    throw new ConnectorError("Every input row must be a JSON object.");
  }
  return rows as Row[];
}

async function* read(config: Row, options: ReadOptions): AsyncGenerator<Row[]> {
  const inputs = parseInputs(options.query);
  const size = Math.max(1, Math.floor(options.batchSize));
  for (let start = 0; start < inputs.length; start += size) {
    throwIfAborted(options.signal);
    yield await infer(config, inputs.slice(start, start + size), options.signal);
  }
}

/** A plausible value for each input field, from examples, defaults or the type. */
function sampleInput(schema: JsonSchema): Row {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const sampleOf = (p: JsonSchema): unknown => {
    if (Array.isArray(p.examples) && p.examples.length > 0) return p.examples[0];
    if (p.default !== undefined) return p.default;
    const type = Array.isArray(p.type) ? p.type[0] : p.type;
    return { string: "sample", number: 1, integer: 1, boolean: true, array: [], object: {}, null: null }[String(type)] ?? "sample";
  };
  return Object.fromEntries(Object.entries(properties).map(([k, p]) => [k, sampleOf(p)]));
}

async function check(config: Row): Promise<CheckResult> {
  return safeCheck(httpModelSourceDefinition, config, async () => {
    // A check says what is wrong soon: one retry at most.
    const s = { ...settings(config), maxRetries: Math.min(settings(config).maxRetries, 1) };
    const { missing } = await predict(s, sampleInput(objectField(config, "input_schema")));
    if (missing.length > 0) {
      return { ok: false, details: `The endpoint answered, but the response has nothing at: ${missing.join(", ")}. Check the response mapping.` };
    }
    return { ok: true, details: `The model at ${new URL(s.url).host} answered a sample prediction.` };
  });
}

async function discover(config: Row): Promise<Catalog> {
  const input = objectField(config, "input_schema");
  const output = objectField(config, "output_schema");
  const props = (schema: JsonSchema) => (schema.properties ?? {}) as Record<string, unknown>;
  return buildCatalog(
    [
      {
        name: "model",
        action: "fetch",
        url: settings(config).url,
        // Output rows carry the input fields plus the outputs, so the stream schema is both.
        json_schema: {
          type: "object",
          properties: { ...props(input), ...props(output), [ERROR_COLUMN]: { type: ["string", "null"] } },
          ...(Array.isArray(output.required) ? { required: output.required } : {}),
        },
        batch_support: false,
        batch_size: 0,
        request_method: settings(config).method,
      },
    ],
    { request_rate_limit: 0, request_rate_limit_unit: "minute", request_rate_concurrency: numberField(config, "concurrency", 4) },
  );
}

export const httpModelSource: SourceConnector = {
  definition: httpModelSourceDefinition,
  check,
  discover,
  read,
  infer,
};

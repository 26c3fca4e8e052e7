// HttpModel source (ai_ml): runs a model behind an HTTP endpoint once per input row.
// `infer` is the primary operation; `read` takes the input rows as a JSON array in `query`
// (one object is one row) and yields the output rows in batches.
import type { Catalog, CheckResult, JsonSchema, ReadOptions, Row, SourceConnector } from "../types";
import { mapLimit, throwIfAborted } from "../shared/batching";
import { buildCatalog } from "../shared/catalog";
import { numberField, objectField, secondsToMs, stringField, stringMap } from "../shared/config";
import { ConnectorError, errorMessage, safeCheck } from "../shared/errors";
import { describeExchange, isSuccess, parseJsonBody, sendHttp, type HttpMethod } from "../shared/http";
import { renderJsonTemplate } from "../shared/liquid";
import { httpModelSourceDefinition } from "./definition";

interface ModelSettings {
  url: string;
  method: Extract<HttpMethod, "POST" | "PUT" | "PATCH" | "GET">;
  headers: Record<string, string>;
  timeoutMs: number;
  requestTemplate: unknown;
  responseMap: Record<string, string>;
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
    concurrency: Math.max(1, Math.floor(numberField(config, "concurrency", 4))),
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
  const headers = { ...(get ? {} : { "content-type": "application/json" }), ...s.headers };
  const exchange = await sendHttp({
    url: get ? withQuery(s.url, body) : s.url,
    method: s.method,
    headers,
    ...(get ? {} : { body: JSON.stringify(body) }),
    timeoutMs: s.timeoutMs,
    signal,
    secretHeaders: Object.keys(s.headers),
    maxBodyBytes: 10 * 1024 * 1024,
  });
  if (!isSuccess(exchange)) {
    const detail = describeExchange(exchange);
    throw new ConnectorError(exchange.failure ? detail : `The model endpoint failed: ${detail}`, exchange.failure ?? `http_${exchange.status}`);
  }
  return outputsOf(s, parseJsonBody(exchange));
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

/** One output row per input: the input's fields plus the model's outputs (outputs win on a clash). */
async function infer(config: Row, inputs: Row[], signal?: AbortSignal): Promise<Row[]> {
  const s = settings(config);
  return mapLimit(inputs, s.concurrency, async (input, index) => {
    throwIfAborted(signal);
    try {
      const { outputs } = await predict(s, input, signal);
      return { ...input, ...outputs };
    } catch (err) {
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
    const s = settings(config);
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
          properties: { ...props(input), ...props(output) },
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

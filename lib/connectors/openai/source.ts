// OpenAI-compatible source (ai_ml): chat completions or embeddings over input rows.
// A model's query holds the input rows (a JSON array, or {"inputs": [...], ...settings}: settings.ts);
// each output row is its input row plus the model's output: for chat the reply in `completion`
// (parsed when response_format is json_object), `finish_reason` and `total_tokens`; for embeddings
// the vector in `embedding`. Every output row has `prediction_error`: null, or the API's reason when it
// refused that one row's request (its outputs are then null and the other rows go on); anything that
// is not about one row (credentials, model, network, 429s past the retries) stops the read naming the
// row. `infer` runs the connector's own settings over rows it is given.
import type { Catalog, CheckResult, QueryResult, ReadOptions, Row, SourceConnector } from "../types";
import { mapLimit, throwIfAborted } from "../shared/batching";
import { buildCatalog } from "../shared/catalog";
import { ConnectorError, errorMessage, safeCheck } from "../shared/errors";
import { renderJsonTemplate, renderTemplate } from "../shared/liquid";
import { PredictionFailed } from "../model-kit/http";
import { ERROR_COLUMN } from "../model-kit/source";
import { callApi } from "./client";
import { openAiSourceDefinition } from "./definition";
import { parseModelQuery, settingsFor, openAiSettings, type OpenAiSettings } from "./settings";

/** A preview runs the model for real, so it is kept to a few inputs whatever limit is asked for. */
export const PREVIEW_MAX_INPUTS = 10;

const scopeOf = (input: Row) => ({ ...input, row: input });

/** Runs `fn` for input row `index`, naming the row in any error it throws. */
async function withRow<T>(index: number, fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof PredictionFailed) throw err;
    throw new ConnectorError(`Input row ${index + 1}: ${errorMessage(err)}`, (err as ConnectorError).code);
  }
}

/** The row of a refused request: the input, null outputs, and the reason. */
function refusedRow(input: Row, outputs: string[], err: PredictionFailed): Row {
  return { ...input, ...Object.fromEntries(outputs.map((name) => [name, null])), [ERROR_COLUMN]: err.message };
}

interface ChatMessage {
  role: string;
  content: unknown;
}

/** The row's own `messages` array when it has one; else the system prompt and the rendered prompt. */
function messagesFor(s: OpenAiSettings, input: Row): ChatMessage[] {
  if (Array.isArray(input.messages)) return input.messages as ChatMessage[];
  const scope = scopeOf(input);
  const messages: ChatMessage[] = [];
  if (s.systemPrompt) messages.push({ role: "system", content: renderTemplate(s.systemPrompt, scope) });
  messages.push({ role: "user", content: renderTemplate(s.promptTemplate, scope) });
  return messages;
}

interface ChatCompletion {
  choices?: { index?: number; message?: { content?: unknown; refusal?: unknown }; finish_reason?: unknown }[];
  usage?: { total_tokens?: unknown };
}

/** The output columns of one chat completion response. */
export function chatOutputs(s: OpenAiSettings, response: unknown): Row {
  const completion = (response ?? {}) as ChatCompletion;
  const choices = Array.isArray(completion.choices) ? completion.choices : [];
  const choice = choices.find((c) => (c?.index ?? 0) === 0) ?? choices[0];
  // A reply without usable text answers this row only: the row carries the reason.
  if (!choice?.message) throw new PredictionFailed("The response has no choices[0].message.");
  const { content, refusal } = choice.message;
  if (typeof content !== "string") {
    throw new PredictionFailed(typeof refusal === "string" && refusal ? `The model refused: ${refusal.slice(0, 300)}` : "The reply has no text content.");
  }
  const finishReason = typeof choice.finish_reason === "string" ? choice.finish_reason : null;
  let value: unknown = content;
  if (s.responseFormat === "json_object") {
    try {
      value = JSON.parse(content);
    } catch {
      const cut = finishReason === "length" ? " It was cut off at the token limit: raise max tokens." : "";
      throw new PredictionFailed(`The reply is not valid JSON: "${content.slice(0, 120)}".${cut}`);
    }
  }
  const total = completion.usage?.total_tokens;
  return { [s.outputField]: value, finish_reason: finishReason, total_tokens: typeof total === "number" ? total : null };
}

async function chat(s: OpenAiSettings, inputs: Row[], signal?: AbortSignal): Promise<Row[]> {
  const outputs = [s.outputField, "finish_reason", "total_tokens"];
  return mapLimit(inputs, s.concurrency, (input, index) =>
    withRow(index, async () => {
      throwIfAborted(signal);
      // The reference's request_format, rendered for the row, unless the row brings its own messages.
      const template = s.requestTemplate && !Array.isArray(input.messages) ? (renderJsonTemplate(s.requestTemplate, scopeOf(input)) as Row) : undefined;
      const body = {
        ...(template ?? {}),
        model: s.model,
        messages: template ? template.messages : messagesFor(s, input),
        // Replies are read whole: a stream the template asks for is not.
        ...(template ? { stream: false } : {}),
        ...(s.maxTokens !== undefined ? { max_tokens: s.maxTokens } : {}),
        ...(s.temperature !== undefined ? { temperature: s.temperature } : {}),
        ...(s.responseFormat === "json_object" ? { response_format: { type: "json_object" } } : {}),
      };
      try {
        const response = await callApi(s, { method: "POST", path: "/chat/completions", body, signal });
        return { ...input, ...chatOutputs(s, response), [ERROR_COLUMN]: null };
      } catch (err) {
        if (err instanceof PredictionFailed) return refusedRow(input, outputs, err);
        throw err;
      }
    }),
  );
}

/** The vectors of an embeddings response, in input order (`data[].index`), checked against the input count. */
export function embeddingVectors(response: unknown, count: number): number[][] {
  const data = (response as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) throw new ConnectorError("The embeddings response has no data array.");
  const vectors = new Array<number[] | undefined>(count);
  data.forEach((item: { index?: unknown; embedding?: unknown }, position) => {
    const index = typeof item?.index === "number" ? item.index : position;
    if (!Number.isInteger(index) || index < 0 || index >= count) throw new ConnectorError(`The embeddings response has an unexpected index ${String(item?.index)}.`);
    const embedding = item.embedding;
    if (!Array.isArray(embedding) || !embedding.every((x) => typeof x === "number")) {
      throw new ConnectorError(`The embedding at index ${index} is not an array of numbers.`);
    }
    vectors[index] = embedding;
  });
  const missing = vectors.findIndex((v) => v === undefined);
  if (missing >= 0) throw new ConnectorError(`The embeddings response has no vector for input ${missing + 1} of ${count}.`);
  return vectors as number[][];
}

/** One embeddings request for `texts`: their vectors in order. */
async function embed(s: OpenAiSettings, texts: string[], signal?: AbortSignal): Promise<number[][]> {
  throwIfAborted(signal);
  const body = { model: s.model, input: texts, encoding_format: "float", ...(s.dimensions !== undefined ? { dimensions: s.dimensions } : {}) };
  return embeddingVectors(await callApi(s, { method: "POST", path: "/embeddings", body, signal }), texts.length);
}

/**
 * The output rows of one chunk. A refused chunk of several rows is asked again row by row, so only the
 * rows the API refuses on their own carry prediction_error.
 */
async function embedChunk(s: OpenAiSettings, rows: Row[], texts: string[], first: number, signal?: AbortSignal): Promise<Row[]> {
  try {
    const vectors = await embed(s, texts, signal);
    return rows.map((input, i) => ({ ...input, [s.outputField]: vectors[i], [ERROR_COLUMN]: null }));
  } catch (err) {
    if (err instanceof PredictionFailed && rows.length > 1) {
      return (await mapLimit(rows, 1, (input, i) => embedChunk(s, [input], [texts[i]], first + i, signal))).flat();
    }
    if (err instanceof PredictionFailed) return [refusedRow(rows[0], [s.outputField], err)];
    const named = rows.length === 1 ? `Input row ${first + 1}` : `Input rows ${first + 1}–${first + rows.length}`;
    throw new ConnectorError(`${named}: ${errorMessage(err)}`, (err as ConnectorError).code);
  }
}

async function embeddings(s: OpenAiSettings, inputs: Row[], signal?: AbortSignal): Promise<Row[]> {
  const texts = await Promise.all(inputs.map((input, index) => withRow(index, () => renderTemplate(s.promptTemplate, scopeOf(input)))));
  const chunks: number[] = [];
  for (let start = 0; start < inputs.length; start += s.embeddingBatchSize) chunks.push(start);
  const parts = await mapLimit(chunks, s.concurrency, (start) => {
    const end = start + s.embeddingBatchSize;
    return embedChunk(s, inputs.slice(start, end), texts.slice(start, end), start, signal);
  });
  return parts.flat();
}

function run(s: OpenAiSettings, inputs: Row[], signal?: AbortSignal): Promise<Row[]> {
  if (inputs.length === 0) return Promise.resolve([]);
  return s.operation === "embeddings" ? embeddings(s, inputs, signal) : chat(s, inputs, signal);
}

async function infer(config: Row, inputs: Row[], signal?: AbortSignal): Promise<Row[]> {
  return run(openAiSettings(config), inputs, signal);
}

async function* read(config: Row, options: ReadOptions): AsyncGenerator<Row[]> {
  const { inputs, overrides } = parseModelQuery(options.query);
  const s = settingsFor(config, overrides);
  const size = Math.max(1, Math.floor(options.batchSize));
  for (let start = 0; start < inputs.length; start += size) {
    throwIfAborted(options.signal);
    yield await run(s, inputs.slice(start, start + size), options.signal);
  }
}

/** Refuses a model query that cannot run, before any request: shape, settings, templates are checked on use. */
function checkQuery(query: string): void {
  const { overrides } = parseModelQuery(query);
  settingsFor({ base_url: "http://check.invalid", model: "check" }, overrides);
}

function typeOf(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/** A preview: the first few inputs (at most PREVIEW_MAX_INPUTS) run through the model. */
async function query(config: Row, modelQuery: string, limit: number): Promise<QueryResult> {
  const { inputs, overrides } = parseModelQuery(modelQuery);
  const rows = await run(settingsFor(config, overrides), inputs.slice(0, Math.max(0, Math.min(limit, PREVIEW_MAX_INPUTS))));
  const columns = new Map<string, string>();
  for (const row of rows) {
    for (const [name, value] of Object.entries(row)) {
      if (!columns.has(name) || columns.get(name) === "null") columns.set(name, typeOf(value));
    }
  }
  return { columns: [...columns].map(([name, type]) => ({ name, type })), rows };
}

interface ModelList {
  data?: { id?: unknown }[];
}

async function listModels(s: OpenAiSettings): Promise<string[]> {
  const list = (await callApi({ ...s, maxRetries: Math.min(s.maxRetries, 1) }, { method: "GET", path: "/models" })) as ModelList | null;
  if (!Array.isArray(list?.data)) throw new ConnectorError(`${new URL(s.apiUrl).host} answered /v1/models without a data array: is this an OpenAI-compatible API?`);
  return list.data.map((m) => m?.id).filter((id): id is string => typeof id === "string");
}

async function check(config: Row): Promise<CheckResult> {
  return safeCheck(openAiSourceDefinition, config, async () => {
    const s = openAiSettings(config);
    const models = await listModels(s);
    const host = new URL(s.apiUrl).host;
    // Some local servers (llama.cpp) list only the file they serve and answer to any name.
    if (models.length > 0 && !models.includes(s.model)) {
      const shown = models.slice(0, 10).join(", ") + (models.length > 10 ? `, … (${models.length - 10} more)` : "");
      return { ok: false, details: `${host} answered, but does not list the model "${s.model}". It lists: ${shown}.` };
    }
    return { ok: true, details: `Connected to ${host}: ${models.length} model${models.length === 1 ? "" : "s"} available, including "${s.model}".` };
  });
}

async function discover(config: Row): Promise<Catalog> {
  const s = openAiSettings(config);
  const output: Record<string, unknown> =
    s.operation === "embeddings"
      ? { [s.outputField]: { type: "array", items: { type: "number" } } }
      : {
          [s.outputField]: s.responseFormat === "json_object" ? { type: "object" } : { type: "string" },
          finish_reason: { type: ["string", "null"] },
          total_tokens: { type: ["integer", "null"] },
        };
  output[ERROR_COLUMN] = { type: ["string", "null"] };
  return buildCatalog(
    [
      {
        name: s.operation === "embeddings" ? "embeddings" : "chat_completions",
        action: "fetch",
        url: `${s.apiUrl}${s.operation === "embeddings" ? "/embeddings" : "/chat/completions"}`,
        // The input fields are the model query's own; the stream declares what the model adds.
        json_schema: { type: "object", properties: output, required: [s.outputField] },
        batch_support: s.operation === "embeddings",
        batch_size: s.operation === "embeddings" ? s.embeddingBatchSize : 0,
        request_method: "POST",
      },
    ],
    { request_rate_limit: s.requestsPerMinute, request_rate_limit_unit: "minute", request_rate_concurrency: s.concurrency },
  );
}

export const openAiSource: SourceConnector = {
  definition: openAiSourceDefinition,
  check,
  discover,
  query,
  checkQuery,
  read,
  infer,
};

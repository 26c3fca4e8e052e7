// A model source from a thin vendor adapter. The model's query holds the input rows (a JSON array of
// objects, or one object); each row's fields fill request_format's placeholders, the vendor answers
// once per row, and the output row is the input row plus the columns response_format picks (plus
// `completion`, the reply's text, for language models) and `prediction_error`: null, or the vendor's
// reason when it refused that one request. On a name clash the input's field wins (it may be the
// row's key). Anything that is not about one row (credentials, network,
// 429s past the retries) stops the read with the row named.
import type { Catalog, CheckResult, ConnectorDefinition, QueryResult, ReadOptions, Row, SourceConnector } from "../types";
import { mapLimit, throwIfAborted } from "../shared/batching";
import { buildCatalog } from "../shared/catalog";
import { ConnectorError, errorMessage, safeCheck } from "../shared/errors";
import { jsonType, pickColumns, pickOutputs, renderRequest } from "./formats";
import { PredictionFailed } from "./http";
import type { KitSettings } from "./settings";

export const ERROR_COLUMN = "prediction_error";
export const COMPLETION_COLUMN = "completion";
/** A preview runs the model for real, so it is kept to a few inputs whatever limit is asked for. */
export const PREVIEW_MAX_INPUTS = 10;

export interface ModelAdapter<S extends KitSettings> {
  definition: ConnectorDefinition;
  settings(config: Row): S;
  /** One prediction: a rendered request body → the vendor's answer (assembled when it streamed). */
  predict(s: S, body: unknown, signal?: AbortSignal): Promise<unknown>;
  /** The reply's text, for language models: the `completion` column. */
  completion?(answer: unknown): string | undefined;
  /** A call proving the settings and credentials; the sentence shown on success. */
  check(s: S, signal?: AbortSignal): Promise<string>;
  /** What discovery shows as the stream's address. */
  endpoint(s: S): string;
}

const QUERY_HELP = 'The model query is the input rows as a JSON array of objects, e.g. [{"id": 1, "prompt": "Hello"}], or one object.';

export function parseInputs(query: string): Row[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(query);
  } catch {
    throw new ConnectorError(`${QUERY_HELP} It is not valid JSON.`);
  }
  const rows = Array.isArray(parsed) ? parsed : [parsed];
  const bad = rows.findIndex((r) => r === null || typeof r !== "object" || Array.isArray(r));
  if (bad >= 0) throw new ConnectorError(`${QUERY_HELP} Input row ${bad + 1} is not an object.`);
  return rows as Row[];
}

export function makeModelSource<S extends KitSettings>(adapter: ModelAdapter<S>): SourceConnector {
  const failedOutputs = (s: S): Row => (s.response.kind === "all" ? {} : pickOutputs(s.response, null));

  async function predictRow(s: S, input: Row, index: number, signal?: AbortSignal): Promise<Row> {
    throwIfAborted(signal);
    const text = adapter.completion ? { [COMPLETION_COLUMN]: null as string | null } : {};
    try {
      const answer = await adapter.predict(s, renderRequest(s.requestTemplate, input), signal);
      const outputs = pickOutputs(s.response, answer);
      if (adapter.completion) text[COMPLETION_COLUMN] = adapter.completion(answer) ?? null;
      // The input's fields win a clash: an input `id` is the row's key, an answer's `id` is not.
      return { ...outputs, ...text, [ERROR_COLUMN]: null, ...input };
    } catch (err) {
      if (err instanceof PredictionFailed) return { ...failedOutputs(s), ...text, [ERROR_COLUMN]: err.message, ...input };
      throw new ConnectorError(`Input row ${index + 1}: ${errorMessage(err)}`, (err as ConnectorError).code);
    }
  }

  const run = (s: S, inputs: Row[], signal?: AbortSignal) => mapLimit(inputs, s.concurrency, (input, i) => predictRow(s, input, i, signal));

  async function* read(config: Row, options: ReadOptions): AsyncGenerator<Row[]> {
    const inputs = parseInputs(options.query);
    const s = adapter.settings(config);
    const size = Math.max(1, Math.floor(options.batchSize));
    for (let start = 0; start < inputs.length; start += size) {
      throwIfAborted(options.signal);
      yield await run(s, inputs.slice(start, start + size), options.signal);
    }
  }

  async function query(config: Row, modelQuery: string, limit: number): Promise<QueryResult> {
    const inputs = parseInputs(modelQuery).slice(0, Math.max(0, Math.min(limit, PREVIEW_MAX_INPUTS)));
    const rows = await run(adapter.settings(config), inputs);
    const columns = new Map<string, string>();
    for (const row of rows) for (const [name, value] of Object.entries(row)) if (!columns.has(name) || columns.get(name) === "null") columns.set(name, jsonType(value));
    return { columns: [...columns].map(([name, type]) => ({ name, type })), rows };
  }

  async function check(config: Row, signal?: AbortSignal): Promise<CheckResult> {
    return safeCheck(adapter.definition, config, async () => ({ ok: true, details: await adapter.check(adapter.settings(config), signal) }));
  }

  async function discover(config: Row): Promise<Catalog> {
    const s = adapter.settings(config);
    const properties: Record<string, unknown> = {
      ...pickColumns(s.response),
      ...(adapter.completion ? { [COMPLETION_COLUMN]: { type: ["string", "null"] } } : {}),
      [ERROR_COLUMN]: { type: ["string", "null"] },
    };
    return buildCatalog(
      [
        {
          name: "model",
          action: "fetch",
          url: adapter.endpoint(s),
          // The input fields are the model query's own; the stream declares what the model adds.
          json_schema: { type: "object", properties },
          batch_support: false,
          batch_size: 0,
          request_method: "POST",
        },
      ],
      { request_rate_limit: s.requestsPerMinute, request_rate_limit_unit: "minute", request_rate_concurrency: s.concurrency },
    );
  }

  return {
    definition: adapter.definition,
    check,
    discover,
    query,
    checkQuery: (q: string) => void parseInputs(q),
    read,
    infer: (config, inputs, signal) => run(adapter.settings(config), inputs, signal),
  };
}

// What the API sources (Http, IntuitQuickBooks, Firecrawl) share: one guarded call with retries on
// throttling, pages regrouped into the engine's batches, rows fingerprinted as they pass, and column
// types guessed from the JSON values an API returns (it declares none).
import { createHash } from "node:crypto";
import type { FingerprintedBatch, FingerprintOptions, JsonSchema, QueryResult, Row } from "../types";
import { ConnectorError } from "./errors";
import { isSuccess, sendHttp, type HttpCall, type HttpExchange } from "@/lib/net/http";
import { abortableSleep } from "./sleep";
import { JsonNumber, parseJsonExact } from "./values";

/** Longest pause before a retry, whatever Retry-After asks: a run must not hang on one answer. */
const MAX_RETRY_WAIT_MS = 60_000;

export interface RetryPolicy {
  /** Attempts in all (the first one included). */
  attempts: number;
  /** First backoff pause when no Retry-After came; doubled each time. */
  baseDelayMs: number;
  /** Is this failed exchange worth another attempt? Default: 429, 5xx, timeouts and network errors. */
  retryable?: (exchange: HttpExchange) => boolean;
  /** Epoch ms no attempt or pause may pass: a read's own time bound, kept through its retries. */
  deadline?: number;
  /** Seconds to wait when the answer says so elsewhere than in Retry-After (a vendor's error text). */
  retryAfter?: (exchange: HttpExchange) => number | undefined;
}

const defaultRetryable = (e: HttpExchange) =>
  e.failure ? e.failure !== "blocked" && e.error !== "The request was cancelled." : e.status === 429 || e.status >= 500;

/** The sentence of a cancelled read. */
export const cancelled = () => new ConnectorError("The read was cancelled.", "cancelled");

/**
 * Sends `call`, again after Retry-After (or a doubling pause) while the answer is a throttle or a
 * server error; returns the last exchange, successful or not. `maxBodyBytes` is a hard bound: an
 * answer that reaches it is refused, never parsed in part.
 */
export async function sendWithRetries(call: HttpCall, policy: RetryPolicy): Promise<HttpExchange> {
  const retryable = policy.retryable ?? defaultRetryable;
  for (let attempt = 1; ; attempt++) {
    if (call.signal?.aborted) throw cancelled();
    const left = policy.deadline !== undefined ? policy.deadline - Date.now() : Infinity;
    const exchange = await sendHttp(left < call.timeoutMs ? { ...call, timeoutMs: Math.max(1, left) } : call);
    if (call.signal?.aborted) throw cancelled();
    if (isSuccess(exchange) && call.maxBodyBytes !== undefined && Buffer.byteLength(exchange.bodyText) >= call.maxBodyBytes) {
      throw new ConnectorError(`The answer from ${new URL(call.url).host} is larger than ${Math.round(call.maxBodyBytes / 1024)} kB; the read was stopped.`, "too_large");
    }
    if (isSuccess(exchange) || attempt >= policy.attempts || !retryable(exchange)) return exchange;
    const seconds = exchange.retryAfterSeconds ?? policy.retryAfter?.(exchange);
    const waitMs = seconds !== undefined ? seconds * 1000 : policy.baseDelayMs * 2 ** (attempt - 1);
    // No time left for the pause and another attempt: the last answer is the answer.
    if (policy.deadline !== undefined && Date.now() + Math.min(waitMs, MAX_RETRY_WAIT_MS) >= policy.deadline) return exchange;
    await abortableSleep(Math.min(waitMs, MAX_RETRY_WAIT_MS), call.signal, cancelled);
  }
}

/**
 * Parses a successful answer's JSON, with a sentence naming `what` when it is not JSON. Exactly: a
 * number a JavaScript number would bend (an id above 2^53, 1e400) stays a JsonNumber with its text,
 * so two ids never collapse into one primary key.
 */
export function jsonOf(exchange: HttpExchange, what: string): unknown {
  try {
    return parseJsonExact(exchange.bodyText);
  } catch {
    throw new ConnectorError(`${what} did not answer JSON.`);
  }
}

/** Regroups rows arriving in pages of any size into batches of exactly `batchSize` (the last one shorter). */
export async function* rebatch(pages: AsyncIterable<Row[]>, batchSize: number): AsyncGenerator<Row[]> {
  const size = Math.max(1, Math.floor(batchSize));
  let batch: Row[] = [];
  for await (const page of pages) {
    for (const row of page) {
      batch.push(row);
      if (batch.length >= size) {
        yield batch;
        batch = [];
      }
    }
  }
  if (batch.length > 0) yield batch;
}

/** The batches of `read` with each row's fingerprint (md5 of the seed and the row's JSON, as the engine computes it). */
export async function* fingerprinted(batches: AsyncIterable<Row[]>, options: FingerprintOptions): AsyncGenerator<FingerprintedBatch> {
  for await (const rows of batches) {
    yield {
      length: rows.length,
      keyValues: rows.map((r) => r[options.primaryKey]),
      fingerprints: rows.map((r) => createHash("md5").update(options.seed).update(JSON.stringify(r)).digest("hex")),
      row: (i) => ({ ...rows[i] }),
    };
  }
}

/** The JSON type name of a value as a column type (what an API's JSON tells of it). */
export function jsonType(value: unknown): "integer" | "number" | "boolean" | "string" | "object" | "array" | "null" {
  if (value === null || value === undefined) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  if (value instanceof JsonNumber) return /^-?\d+$/.test(value.text) ? "integer" : "number";
  if (typeof value === "boolean") return "boolean";
  if (typeof value === "object") return "object";
  return "string";
}

/** Columns seen in `rows` (first appearance order) with the JSON type of their values; mixed numbers are `number`, other mixes `string`. */
export function columnsOf(rows: readonly Row[]): { name: string; type: string; nullable: boolean }[] {
  const seen = new Map<string, { types: Set<string>; nulls: boolean }>();
  for (const row of rows) {
    for (const [name, value] of Object.entries(row)) {
      let column = seen.get(name);
      if (!column) seen.set(name, (column = { types: new Set(), nulls: false }));
      const type = jsonType(value);
      if (type === "null") column.nulls = true;
      else column.types.add(type);
    }
  }
  return [...seen].map(([name, { types, nulls }]) => {
    const missing = rows.some((r) => !(name in r));
    let type = "string";
    if (types.size === 1) type = [...types][0];
    else if (types.size === 2 && types.has("integer") && types.has("number")) type = "number";
    return { name, type, nullable: nulls || missing || types.size === 0 };
  });
}

/** A stream's json_schema from sampled rows. */
export function schemaOf(rows: readonly Row[]): JsonSchema {
  return {
    type: "object",
    properties: Object.fromEntries(columnsOf(rows).map((c) => [c.name, { type: c.nullable ? [c.type, "null"] : c.type }])),
  };
}

/** A preview's answer: the sampled rows and their columns. */
export function previewOf(rows: Row[]): QueryResult {
  return { columns: columnsOf(rows).map((c) => ({ name: c.name, type: c.type })), rows };
}

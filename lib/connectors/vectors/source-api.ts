// What the vector sources (Pinecone, Qdrant) share: one JSON request through shared/http.ts (the
// outbound policy, timeouts, masked credential headers) with 408/429/5xx retried after Retry-After
// (else 1 s, 2 s, 4 s…); the model query, a JSON object naming a similarity search or, when it has
// no vector, a listing of every stored vector; and fingerprints of the rows read.
import { createHash } from "node:crypto";
import { ConnectorError } from "../shared/errors";
import { describeExchange, isRetryable, isSuccess, parseJsonBody, sendHttp, type HttpMethod } from "@/lib/net/http";
import { abortableSleep } from "../shared/sleep";
import { vectorOf } from "./values";
import type { FingerprintedBatch, FingerprintOptions, Row } from "../types";

/** Attempts of one request before its error is the read's. */
const ATTEMPTS = 5;
const MAX_BACKOFF_MS = 30_000;
/** A page of vectors with their values runs to megabytes. */
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

export interface JsonCall {
  url: string;
  method: Exclude<HttpMethod, "OPTIONS" | "HEAD">;
  headers: Record<string, string>;
  /** Header names carrying the credential (masked in logs). */
  secretHeaders: string[];
  body?: unknown;
  timeoutMs: number;
  signal?: AbortSignal;
  /** The vendor's error sentence out of a failed answer's body. */
  errorText?: (body: unknown) => string | undefined;
  /** The vendor's name, for sentences. */
  vendor: string;
  /** Attempts before the error is the caller's (default 5); previews and checks, where a person waits, take fewer. */
  attempts?: number;
}

/** The answer's parsed body, or a ConnectorError with the vendor's sentence after the retries. */
export async function callJson(call: JsonCall): Promise<unknown> {
  const body = call.body === undefined ? undefined : JSON.stringify(call.body);
  const headers = { accept: "application/json", ...(body !== undefined ? { "content-type": "application/json" } : {}), ...call.headers };
  for (let attempt = 1; ; attempt++) {
    const exchange = await sendHttp({ url: call.url, method: call.method, headers, body, timeoutMs: call.timeoutMs, signal: call.signal, secretHeaders: call.secretHeaders, maxBodyBytes: MAX_RESPONSE_BYTES });
    if (isSuccess(exchange)) return exchange.bodyText === "" ? {} : parseJsonBody(exchange);
    if (!isRetryable(exchange) || attempt >= (call.attempts ?? ATTEMPTS) || call.signal?.aborted) {
      if (exchange.failure) throw new ConnectorError(describeExchange(exchange), exchange.failure);
      let said: string | undefined;
      try {
        said = call.errorText?.(JSON.parse(exchange.bodyText) as unknown);
      } catch {
        said = undefined;
      }
      const text = said ?? exchange.bodyText.trim().slice(0, 300);
      const tries = attempt > 1 ? ` (after ${attempt} attempts)` : "";
      throw new ConnectorError(`${call.vendor} answered HTTP ${exchange.status}${text ? `: ${text}` : "."}${tries}`, `http_${exchange.status}`);
    }
    const waitMs = exchange.retryAfterSeconds !== undefined ? exchange.retryAfterSeconds * 1000 : Math.min(MAX_BACKOFF_MS, 1000 * 2 ** (attempt - 1));
    await abortableSleep(waitMs, call.signal, () => new ConnectorError("The read was cancelled.", "cancelled"));
  }
}

/** A filter the reference's way: a field, an operator (eq, neq, gt, gte, lt, lte, in) and a value. */
export interface SimpleFilter {
  field: string;
  operator: "eq" | "neq" | "gt" | "gte" | "lt" | "lte" | "in";
  value: unknown;
}

/** A vector source's model query, parsed. */
export interface VectorQuery {
  /** Absent: list every stored vector (page by page); present: the nearest `limit` to it. */
  vector?: number[];
  limit?: number;
  /** The vendor's own filter object, passed as it is. */
  filter?: Row;
  filters: SimpleFilter[];
  /** Pinecone: the namespace read instead of the configured one. */
  namespace?: string;
}

const OPERATORS = new Set(["eq", "neq", "gt", "gte", "lt", "lte", "in"]);
const KEYS = new Set(["vector", "limit", "top_k", "filter", "filters", "namespace"]);

/**
 * The model query: a JSON object `{"vector": [...], "limit": 10, "filter": {...}, "filters": [...]}`;
 * an empty query or `{}` lists everything. Anything else is refused with a sentence.
 */
export function parseVectorQuery(text: string, maxLimit: number): VectorQuery {
  const trimmed = text.trim();
  if (trimmed === "") return { filters: [] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch {
    throw new ConnectorError('The model query must be a JSON object: {} lists every vector, {"vector": [0.1, …], "limit": 10} finds the nearest ones.');
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new ConnectorError("The model query must be a JSON object.");
  const q = parsed as Row;
  const unknown = Object.keys(q).filter((k) => !KEYS.has(k));
  if (unknown.length > 0) throw new ConnectorError(`The model query has unknown keys: ${unknown.join(", ")} (known: ${[...KEYS].join(", ")}).`);
  const out: VectorQuery = { filters: [] };
  if (q.vector !== undefined) out.vector = vectorOf(q.vector, "vector");
  const limit = q.limit ?? q.top_k;
  if (limit !== undefined) {
    if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 || limit > maxLimit) throw new ConnectorError(`The model query's limit must be a whole number from 1 to ${maxLimit}.`);
    out.limit = limit;
  }
  if (q.filter !== undefined) {
    if (typeof q.filter !== "object" || q.filter === null || Array.isArray(q.filter)) throw new ConnectorError("The model query's filter must be an object.");
    out.filter = q.filter as Row;
  }
  if (q.filters !== undefined) {
    if (!Array.isArray(q.filters)) throw new ConnectorError("The model query's filters must be an array of {field, operator, value}.");
    for (const f of q.filters as Row[]) {
      const operator = f?.operator ?? "eq";
      if (typeof f?.field !== "string" || f.field === "" || typeof operator !== "string" || !OPERATORS.has(operator) || f.value === undefined) {
        throw new ConnectorError(`Each filter needs a field, an operator (${[...OPERATORS].join(", ")}) and a value; got ${JSON.stringify(f)}.`);
      }
      out.filters.push({ field: f.field, operator: operator as SimpleFilter["operator"], value: f.value });
    }
  }
  if (q.namespace !== undefined) {
    if (typeof q.namespace !== "string") throw new ConnectorError("The model query's namespace must be text.");
    out.namespace = q.namespace;
  }
  return out;
}

/** Rows with their fingerprints: md5 of the seed and the row's JSON (equal rows, equal hashes). */
export function fingerprinted(rows: Row[], options: FingerprintOptions): FingerprintedBatch {
  return {
    length: rows.length,
    keyValues: rows.map((r) => r[options.primaryKey]),
    fingerprints: rows.map((r) => createHash("md5").update(options.seed).update(JSON.stringify(r)).digest("hex")),
    row: (i) => ({ ...rows[i] }),
  };
}

/** Column types of preview rows (the first non-null value of each column decides). */
export function previewColumns(rows: Row[], order: string[]): { name: string; type: string }[] {
  const typeOf = (v: unknown) => (v === null || v === undefined ? "null" : Array.isArray(v) ? "array" : typeof v === "number" ? (Number.isInteger(v) ? "integer" : "number") : typeof v);
  return order.map((name) => ({ name, type: rows.map((r) => typeOf(r[name])).find((t) => t !== "null") ?? "null" }));
}

// What the warehouse "statement APIs" share (Snowflake's SQL API v2, Databricks' Statement Execution
// API 2.0): authenticated JSON calls through the outbound guard, a 429/503 answered by waiting its
// Retry-After (bounded) and trying again, polling a running statement with growing pauses, and the
// run's cancel turned into the vendor's cancel call. Each connector keeps its own request shapes.
import { ConnectorError } from "./errors";
import { parseJsonBody, sendHttp, type HttpExchange, type HttpMethod } from "@/lib/net/http";
import { abortableSleep } from "./sleep";

export interface StatementApi {
  /** Vendor name for sentences ("Snowflake"). */
  vendor: string;
  /** `https://host` (no trailing slash); paths are appended. */
  baseUrl: string;
  /** Headers of every call, the credential included (fetched per call: a JWT may be renewed). */
  headers: () => Promise<Record<string, string>>;
  /** Timeout of one HTTP call. */
  requestTimeoutMs: number;
  /** The vendor's error sentence out of a failed answer (never echoing the credential). */
  describeError: (exchange: HttpExchange) => string;
  /** Header names (lowercase) masked in logs besides Authorization. */
  secretHeaders?: string[];
}

/** Throttled answers tried again after their Retry-After; beyond this many the call fails. */
const MAX_THROTTLED_RETRIES = 5;
/** Longest single wait for a Retry-After we honour inside a call (seconds). */
const MAX_RETRY_WAIT_SECONDS = 60;
/**
 * Largest answer kept (one result partition or chunk). Parsed JSON takes many times its text
 * (`[[],[],…]` about 30×), so this stays small: Snowflake's partitions and Databricks' inline chunks
 * are a few MB; a larger answer fails with a sentence.
 */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return abortableSleep(ms, signal, () => cancelled());
}

export function cancelled(): ConnectorError {
  return new ConnectorError("The statement was cancelled.", "CANCELLED");
}

/**
 * One authenticated JSON call. 429 and 503 are waited out (Retry-After, else 1 s, 2 s, 4 s…) up to
 * MAX_THROTTLED_RETRIES times; a network failure or another status throws ConnectorError with the
 * vendor's sentence. Returns the status (2xx) and the parsed body.
 */
export async function callApi(
  api: StatementApi,
  method: HttpMethod,
  path: string,
  body: unknown,
  signal?: AbortSignal,
): Promise<{ status: number; json: unknown }> {
  for (let attempt = 0; ; attempt++) {
    const exchange = await sendHttp({
      url: `${api.baseUrl}${path}`,
      method,
      headers: { accept: "application/json", ...(body !== undefined ? { "content-type": "application/json" } : {}), ...(await api.headers()) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      timeoutMs: api.requestTimeoutMs,
      signal,
      secretHeaders: api.secretHeaders,
      maxBodyBytes: MAX_BODY_BYTES,
      maxRedirects: 0,
    });
    if (signal?.aborted) throw cancelled();
    if (exchange.failure) throw new ConnectorError(`${api.vendor}: ${exchange.error ?? "no answer"}`);
    if ((exchange.status === 429 || exchange.status === 503) && attempt < MAX_THROTTLED_RETRIES) {
      const seconds = Math.min(exchange.retryAfterSeconds ?? 2 ** attempt, MAX_RETRY_WAIT_SECONDS);
      await sleep(seconds * 1000, signal);
      continue;
    }
    if (exchange.status < 200 || exchange.status >= 300) throw new StatementApiError(api.describeError(exchange), exchange.status);
    return { status: exchange.status, json: exchange.bodyText === "" ? {} : parseJsonBody(exchange) };
  }
}

/** A refused call: the vendor's sentence and the HTTP status (401/403 mean the credential). */
export class StatementApiError extends ConnectorError {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message, `HTTP_${status}`);
  }
}

/** Pauses between polls of a running statement: 50 ms, doubling, at most 1 s. */
export function pollPause(attempt: number): number {
  return Math.min(1000, 50 * 2 ** attempt);
}

/**
 * Polls `poll` until it reports a finished statement, within `timeoutMs`; on the caller's abort or
 * the deadline it calls `cancel` (the vendor's cancel call, best effort) and throws.
 */
export async function untilFinished<T>(
  poll: () => Promise<T | undefined>,
  options: { timeoutMs: number; signal?: AbortSignal; cancel: () => Promise<void>; vendor: string },
): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  try {
    for (let attempt = 0; ; attempt++) {
      const done = await poll();
      if (done !== undefined) return done;
      if (Date.now() >= deadline) {
        await options.cancel().catch(() => undefined);
        throw new ConnectorError(
          `The statement did not finish within ${Math.round(options.timeoutMs / 1000)} s (query_timeout), so it was cancelled in ${options.vendor}.`,
          "TIMEOUT",
        );
      }
      await sleep(Math.min(pollPause(attempt), Math.max(1, deadline - Date.now())), options.signal);
    }
  } catch (err) {
    if (options.signal?.aborted) {
      await options.cancel().catch(() => undefined);
      throw cancelled();
    }
    throw err;
  }
}

/** Cuts rows into arrays of at most `size`, holding one input page and one batch at a time. */
export async function* rebatch<T>(pages: AsyncIterable<T[]>, size: number, signal?: AbortSignal): AsyncGenerator<T[]> {
  let batch: T[] = [];
  for await (const page of pages) {
    for (const row of page) {
      batch.push(row);
      if (batch.length >= size) {
        if (signal?.aborted) throw cancelled();
        yield batch;
        batch = [];
      }
    }
  }
  if (batch.length > 0) yield batch;
}

/** A cell's text into its value; undefined for a column whose text is its value. */
export type CellConverter = (text: string) => unknown;

/** Rows of a statement API's page (arrays of text cells and nulls) as objects, each cell through its column's converter. */
export function cellRowsReader(
  names: readonly string[],
  converters: readonly (CellConverter | undefined)[],
): (data: (string | null)[][]) => Record<string, unknown>[] {
  return (data) =>
    data.map((cells) => {
      const row: Record<string, unknown> = {};
      for (let i = 0; i < names.length; i++) {
        const cell = cells[i];
        const convert = converters[i];
        row[names[i]] = cell === null || cell === undefined ? null : convert ? convert(cell) : cell;
      }
      return row;
    });
}

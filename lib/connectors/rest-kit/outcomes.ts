// One outcome per record of a request: the vendor's per-record result when it gives one (a 207
// multi-status, a results array), else the request's own status for every record. Each record's
// log shows its own element of the body and its own result; failures are retryable when the
// vendor says so (408, 429, 5xx, the definition's extra statuses, network trouble), with the wait
// from Retry-After or the vendor's rate-limit headers.
import type { LogPart, RecordLog, WriteOutcome, WriteRecord } from "../types";
import { exactJson } from "../shared/values";
import { describeExchange, isRetryable, isSuccess, logUrl, truncate, type HttpExchange } from "@/lib/net/http";
import { capRetryAfter } from "@/lib/net/retry-after";
import type { Prepared } from "./batches";
import { describeFailure, responseOf } from "./client";
import type { RecordResult, RestDestinationSpec, RestResponse } from "./types";

/** Longest body a record's log keeps (as shared/http.ts keeps for other HTTP destinations). */
const LOG_BODY_LIMIT = 2 * 1024;

function logBody(value: unknown): unknown {
  if (value === undefined) return undefined;
  const text = typeof value === "string" ? value : exactJson(value);
  return text.length <= LOG_BODY_LIMIT ? value : truncate(text, LOG_BODY_LIMIT);
}

function responseLog(exchange: HttpExchange, detail: unknown): LogPart {
  if (!exchange.response) return { line: exchange.error ?? "No response." };
  const body = logBody(detail ?? (responseBody(exchange) || undefined));
  return body === undefined ? { line: `HTTP ${exchange.status}` } : { line: `HTTP ${exchange.status}`, body };
}

function responseBody(exchange: HttpExchange): unknown {
  try {
    return JSON.parse(exchange.bodyText) as unknown;
  } catch {
    return exchange.bodyText;
  }
}

function recordLog(exchange: HttpExchange, index: number, count: number, item: unknown, ok: boolean, detail?: unknown): RecordLog {
  const line = `${exchange.request.method} ${logUrl(exchange.request.url)}`;
  return {
    request: { line: count > 1 ? `${line} (record ${index + 1} of ${count} in one request)` : line, body: logBody(item) },
    response: responseLog(exchange, detail),
    level: ok ? "info" : "error",
  };
}

/** The vendor's sentence for a failed request: its own error text when the hook finds one. */
export function failureText(spec: RestDestinationSpec, exchange: HttpExchange, response: RestResponse): string {
  return exchange.failure ? describeExchange(exchange) : describeFailure(spec, exchange, response);
}

/** Seconds to wait before a retry: Retry-After, else what the vendor's headers or rules say. */
export function waitSeconds(spec: RestDestinationSpec, exchange: HttpExchange, response: RestResponse, throttled = false): number | undefined {
  if (exchange.retryAfterSeconds !== undefined) return exchange.retryAfterSeconds;
  if (exchange.failure || (!throttled && exchange.status !== 429 && exchange.status < 500)) return undefined;
  const seconds = spec.retryAfter?.(response);
  return seconds === undefined || !Number.isFinite(seconds) ? undefined : capRetryAfter(Math.ceil(seconds));
}

function failedRequest(spec: RestDestinationSpec, exchange: HttpExchange, response: RestResponse, group: Prepared<WriteRecord>[]): WriteOutcome[] {
  const error = failureText(spec, exchange, response);
  const throttled = !exchange.failure && (spec.throttled?.(response) ?? false);
  const retryable = throttled || isRetryable(exchange) || (!exchange.failure && (spec.retryableStatuses ?? []).includes(exchange.status));
  const wait = retryable ? waitSeconds(spec, exchange, response, throttled) : undefined;
  return group.map((p, i) => ({
    key: p.entry.key,
    ok: false,
    error,
    status: exchange.status,
    retryable,
    ...(wait !== undefined ? { retryAfterSeconds: wait } : {}),
    log: recordLog(exchange, i, group.length, p.item, false),
  }));
}

/**
 * The outcomes of `group`, sent together in `exchange`. `results` is the endpoint's reading of a 2xx
 * answer (undefined: every record shares the status).
 */
export function requestOutcomes(
  spec: RestDestinationSpec,
  exchange: HttpExchange,
  group: Prepared<WriteRecord>[],
  results: RecordResult[] | undefined,
): WriteOutcome[] {
  if (!isSuccess(exchange)) return failedRequest(spec, exchange, responseOf(exchange), group);
  if (results && results.length !== group.length) {
    const error = `${spec.definition.title} answered ${results.length} results for ${group.length} records; none can be trusted.`;
    return group.map((p, i) => ({ key: p.entry.key, ok: false, error, status: exchange.status, retryable: false, log: recordLog(exchange, i, group.length, p.item, false) }));
  }
  return group.map((p, i) => {
    const result = results?.[i] ?? { ok: true };
    const log = recordLog(exchange, i, group.length, p.item, result.ok, results ? result.detail : undefined);
    if (result.ok) return { key: p.entry.key, ok: true, status: exchange.status, log };
    return {
      key: p.entry.key,
      ok: false,
      error: `${spec.definition.title} refused the record: ${result.error}`,
      status: exchange.status,
      retryable: result.retryable ?? false,
      log,
    };
  });
}

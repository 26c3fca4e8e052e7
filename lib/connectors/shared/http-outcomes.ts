// A record's log and write outcome of one HTTP exchange (lib/net/http.ts sends it): method, URL and
// body sent, status and body received, bounded.
import { describeExchange, isRetryable, isSuccess, logUrl, truncate, type HttpExchange } from "@/lib/net/http";
import type { LogPart, RecordLog, WriteOutcome } from "../types";

/** Longest body a record's log keeps, of the request and of the response. */
const RECORD_LOG_BODY_LIMIT = 2 * 1024;

/** The response side of a record's log: status and (bounded) body, or why nothing was received. */
function responsePart(exchange: HttpExchange, parseBody = false): LogPart {
  if (!exchange.response) return { line: exchange.error ?? "No response." };
  const line = `HTTP ${exchange.response.status}`;
  const text = exchange.response.body;
  if (!text) return { line };
  if (parseBody && text.length <= RECORD_LOG_BODY_LIMIT) {
    try {
      return { line, body: JSON.parse(text) as unknown };
    } catch {
      // Not JSON: kept as text.
    }
  }
  return { line, body: truncate(text, RECORD_LOG_BODY_LIMIT) };
}

/**
 * A record's log of `exchange`: method, URL and body sent (never a header: they hold the
 * credentials), and the status and body received, or why nothing was received. `shownUrl` replaces
 * a URL that is itself a secret (an incoming-webhook URL).
 */
export function exchangeLog(exchange: HttpExchange, ok: boolean, shownUrl?: string): RecordLog {
  const body = exchange.request.body;
  const line = `${exchange.request.method} ${logUrl(shownUrl ?? exchange.request.url)}`;
  return {
    request: body ? { line, body: truncate(body, RECORD_LOG_BODY_LIMIT) } : { line },
    response: responsePart(exchange),
    level: ok ? "info" : "error",
  };
}

/**
 * The outcome of one record sent in `exchange`. `failed` lets a caller fail a 2xx whose body says
 * otherwise (Slack's `{ok:false}`); `shownUrl` is what the log shows for a secret URL.
 */
export function outcomeFromExchange(key: string, exchange: HttpExchange, failed?: string, shownUrl?: string): WriteOutcome {
  const ok = isSuccess(exchange) && !failed;
  const outcome: WriteOutcome = { key, ok, status: exchange.status, log: exchangeLog(exchange, ok, shownUrl) };
  if (!ok) {
    outcome.error = failed ?? describeExchange(exchange);
    outcome.retryable = isRetryable(exchange);
    if (exchange.retryAfterSeconds !== undefined) outcome.retryAfterSeconds = exchange.retryAfterSeconds;
  }
  return outcome;
}

/**
 * The outcomes of records sent together in `exchange` (one JSON array): one answer for all, each
 * log showing the record's own element of the array. What is common (the answer, parsed once when
 * it is JSON) is built once per request and shared.
 */
export function batchOutcomes(exchange: HttpExchange, records: { key: string; payload: unknown }[]): WriteOutcome[] {
  const shared = outcomeFromExchange("", exchange);
  const response = responsePart(exchange, true);
  const level: RecordLog["level"] = shared.ok ? "info" : "error";
  const line = `${exchange.request.method} ${logUrl(exchange.request.url)}`;
  const n = records.length;
  return records.map((r, i) => ({
    ...shared,
    key: r.key,
    log: { request: { line: `${line} (record ${i + 1} of ${n} in one request)`, body: r.payload }, response, level },
  }));
}

// One model API call through shared/http.ts (the outbound policy, timeouts, bounded bodies): spaced by
// the requests and tokens budgets, retried on 408/429/5xx/no answer after Retry-After (else backoff),
// and failed with the vendor's own reason. A refusal of this one request (400, 413, 422, 424: the
// row's prompt or payload) is a PredictionFailed, reported on the row; anything else stops the read.
import { ConnectorError } from "../shared/errors";
import { isRetryable, isSuccess, sendHttp, type HttpExchange } from "@/lib/net/http";
import { budgetKey, retryDelayMs, sleep, spend } from "./budget";
import { estimateTokens } from "./formats";
import type { KitSettings } from "./settings";
import { sseJson } from "./sse";

/** The vendor refused this request (not the connection): the row carries the reason. */
export class PredictionFailed extends ConnectorError {
  constructor(message: string) {
    super(message, "prediction_failed");
    this.name = "PredictionFailed";
  }
}

/** Statuses that mean "this request", not "this connection". */
const ROW_STATUSES = new Set([400, 413, 422, 424]);

/** The vendor answered and refused this one request (its prompt or payload), not the connection. */
export function isRowRefusal(exchange: HttpExchange): boolean {
  return !exchange.failure && ROW_STATUSES.has(exchange.status);
}

/** What a call needs of the settings: the limits and the timeout. */
export type CallLimits = Pick<KitSettings, "timeoutMs" | "maxRetries" | "requestsPerMinute" | "tokensPerMinute">;
/** Model answers, streams included, are small; a bound keeps a hostile endpoint from filling memory. */
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

export interface ModelCall {
  /** Who answers, for sentences: "Anthropic", "watsonx.ai"… */
  vendor: string;
  method: "GET" | "POST" | "PUT" | "PATCH";
  url: string;
  headers: Record<string, string>;
  /** Header names (lowercase) that carry credentials: masked in logs. */
  secretHeaders: string[];
  body?: unknown;
  /** The answer is a server-sent event stream. */
  sse?: boolean;
  /** Spacing key parts (endpoint, credential): hashed. */
  budget: string[];
  /** Follow redirects (the policy checks each hop); the kit's vendors answer in place. */
  followRedirects?: boolean;
  /** A 401 may mean an expired token: fresh headers, asked once. */
  refreshAuth?: () => Promise<Record<string, string>>;
}

export interface ModelAnswer {
  /** The parsed JSON body (undefined for an event stream). */
  json?: unknown;
  /** The stream's events with JSON data, in order. */
  events?: { event: string; data: unknown }[];
}

/** The vendor's reason in its error body: error.message, errors[0].message, message, Message, error (text). */
export function vendorReason(bodyText: string): string | undefined {
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(bodyText) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (!body || typeof body !== "object") return undefined;
  const error = body.error as Record<string, unknown> | string | undefined;
  const errors = Array.isArray(body.errors) ? (body.errors[0] as Record<string, unknown> | undefined) : undefined;
  const candidates = [
    typeof error === "object" && error ? error.message : error,
    errors?.message,
    body.message,
    body.Message,
    body.errorMessage,
    body.detail,
  ];
  const found = candidates.find((c): c is string => typeof c === "string" && c.trim() !== "");
  return found?.trim().slice(0, 300);
}

export function describeRefusal(vendor: string, exchange: HttpExchange): string {
  if (exchange.failure) return exchange.error ?? `${vendor} did not answer.`;
  const reason = vendorReason(exchange.bodyText) ?? exchange.bodyText.trim().slice(0, 200);
  const said = reason ? `: ${reason}${/[.!?]$/.test(reason) ? "" : "."}` : ".";
  switch (exchange.status) {
    case 401:
      return `${vendor} refused the credentials (HTTP 401)${said}`;
    case 403:
      return `${vendor} does not let these credentials do that (HTTP 403)${said}`;
    case 404:
      return `${vendor} has no such endpoint or model (HTTP 404)${said}`;
    case 429:
      return `${vendor} kept answering "too many requests" (HTTP 429)${said} Lower the concurrency, requests or tokens per minute.`;
    default:
      return `${vendor} answered HTTP ${exchange.status}${said}`;
  }
}

export async function callModel(s: CallLimits, call: ModelCall, signal?: AbortSignal): Promise<ModelAnswer> {
  const key = budgetKey(...call.budget);
  const body = call.body === undefined ? undefined : JSON.stringify(call.body);
  let headers: Record<string, string> = {
    accept: call.sse ? "text/event-stream" : "application/json",
    ...(body !== undefined ? { "content-type": "application/json" } : {}),
    ...call.headers,
  };
  let refreshed = false;
  for (let attempt = 0; ; attempt++) {
    if (signal?.aborted) throw new ConnectorError("The read was cancelled.");
    await spend(key, s, call.method === "POST" ? estimateTokens(call.body) : 0, signal);
    const exchange = await sendHttp({
      url: call.url,
      method: call.method,
      headers,
      body,
      timeoutMs: s.timeoutMs,
      signal,
      secretHeaders: call.secretHeaders,
      maxBodyBytes: MAX_ANSWER_BYTES,
      ...(call.followRedirects ? {} : { maxRedirects: 0 }),
    });
    if (isSuccess(exchange)) return parseAnswer(call, exchange);
    if (signal?.aborted) throw new ConnectorError("The read was cancelled.");
    if (exchange.status === 401 && call.refreshAuth && !refreshed) {
      refreshed = true;
      headers = { ...headers, ...(await call.refreshAuth()) };
      continue;
    }
    if (isRetryable(exchange) && attempt < s.maxRetries) {
      await sleep(retryDelayMs(exchange.retryAfterSeconds, attempt), signal);
      continue;
    }
    const tries = attempt > 0 ? ` (after ${attempt + 1} attempts)` : "";
    const sentence = `${describeRefusal(call.vendor, exchange)}${tries}`;
    if (isRowRefusal(exchange)) throw new PredictionFailed(sentence);
    throw new ConnectorError(sentence, exchange.failure === "blocked" ? "outbound_blocked" : (exchange.failure ?? `http_${exchange.status}`));
  }
}

function parseAnswer(call: ModelCall, exchange: HttpExchange): ModelAnswer {
  const type = exchange.response?.headers["content-type"] ?? "";
  if (call.sse || type.startsWith("text/event-stream")) return { events: sseJson(exchange.bodyText) };
  try {
    return { json: JSON.parse(exchange.bodyText) };
  } catch {
    throw new PredictionFailed(`${call.vendor} answered something that is not JSON: "${exchange.bodyText.trim().slice(0, 120)}".`);
  }
}

// Requests to an OpenAI-compatible API: Bearer key, JSON in and out, requests spaced to the
// configured rate, and 408/429/5xx/no answer retried after Retry-After (else exponential backoff).
// Every request goes through shared/http.ts, so the outbound network policy applies.
import { createHash } from "node:crypto";
import { ConnectorError } from "../shared/errors";
import { describeExchange, isRetryable, isSuccess, parseJsonBody, sendHttp, type HttpExchange } from "../shared/http";
import type { OpenAiSettings } from "./settings";

/** Longest backoff between retries when the server does not say (Retry-After is capped on its own). */
const MAX_BACKOFF_MS = 30_000;
/** Embedding responses of a large batch run to megabytes. */
const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

/** How long to wait before retry number `attempt + 1`: Retry-After when the server sent one, else 1 s, 2 s, 4 s… */
export function retryDelayMs(exchange: Pick<HttpExchange, "retryAfterSeconds">, attempt: number): number {
  if (exchange.retryAfterSeconds !== undefined) return exchange.retryAfterSeconds * 1000;
  return Math.min(MAX_BACKOFF_MS, 1000 * 2 ** attempt);
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason instanceof Error ? signal.reason : new Error("The read was cancelled."));
    if (ms <= 0) return resolve();
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason instanceof Error ? signal.reason : new Error("The read was cancelled."));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Spaces request starts so that at most `perMinute` begin in any minute, per key (one API and key),
 * within this process: a slot is reserved before waiting, so concurrent callers queue up in order.
 */
export class RequestSpacer {
  private readonly next = new Map<string, number>();
  constructor(
    private readonly now: () => number = Date.now,
    private readonly wait: (ms: number, signal?: AbortSignal) => Promise<void> = sleep,
  ) {}

  /** Milliseconds the caller waited for (0 without a limit). */
  async acquire(key: string, perMinute: number, signal?: AbortSignal): Promise<number> {
    if (perMinute <= 0) return 0;
    const now = this.now();
    const slot = Math.max(now, this.next.get(key) ?? 0);
    this.next.set(key, slot + 60_000 / perMinute);
    if (this.next.size > 1000) this.next.delete(this.next.keys().next().value as string);
    await this.wait(slot - now, signal);
    return slot - now;
  }
}

const spacer = new RequestSpacer();

function spacingKey(s: OpenAiSettings): string {
  return createHash("sha256").update(`${s.apiUrl}\u0000${s.apiKey ?? ""}`).digest("hex");
}

/** The `error.message` of an OpenAI error body (`{"error": {"message", "type", "code"}}`), when there is one. */
function apiErrorMessage(exchange: HttpExchange): string | undefined {
  try {
    const body = JSON.parse(exchange.bodyText) as { error?: { message?: unknown } | string; message?: unknown };
    const message = typeof body.error === "string" ? body.error : (body.error?.message ?? body.message);
    return typeof message === "string" && message ? message.slice(0, 300) : undefined;
  } catch {
    return undefined;
  }
}

/** A sentence for a failed request, naming what to fix where the status says it. */
export function describeApiFailure(exchange: HttpExchange): string {
  if (exchange.failure) return describeExchange(exchange);
  const host = new URL(exchange.request.url).host;
  const said = apiErrorMessage(exchange);
  const text = said ?? exchange.bodyText.trim().slice(0, 300);
  const detail = text ? `: ${text}${/[.!?]$/.test(text) ? "" : "."}` : ".";
  switch (exchange.status) {
    case 401:
      return `${host} refused the API key (HTTP 401)${detail}`;
    case 403:
      return `${host} does not let this API key do that (HTTP 403)${detail}`;
    case 404:
      return `${host} has no such endpoint or model (HTTP 404)${detail} Check the base URL and the model name.`;
    case 429:
      return `${host} kept answering "too many requests" (HTTP 429)${detail} Lower the concurrency or requests per minute.`;
    default:
      return `${host} answered HTTP ${exchange.status}${detail}`;
  }
}

export interface ApiRequest {
  method: "GET" | "POST";
  /** Below the API root, e.g. `/chat/completions`. */
  path: string;
  body?: unknown;
  signal?: AbortSignal;
}

/** One API call with spacing and retries; returns the parsed JSON body or throws ConnectorError. */
export async function callApi(s: OpenAiSettings, request: ApiRequest): Promise<unknown> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (request.body !== undefined) headers["content-type"] = "application/json";
  if (s.apiKey) headers.authorization = `Bearer ${s.apiKey}`;
  const body = request.body === undefined ? undefined : JSON.stringify(request.body);
  for (let attempt = 0; ; attempt++) {
    await spacer.acquire(spacingKey(s), s.requestsPerMinute, request.signal);
    const exchange = await sendHttp({
      url: `${s.apiUrl}${request.path}`,
      method: request.method,
      headers,
      body,
      timeoutMs: s.timeoutMs,
      signal: request.signal,
      secretHeaders: ["authorization"],
      maxBodyBytes: MAX_RESPONSE_BYTES,
    });
    if (isSuccess(exchange)) return parseJsonBody(exchange);
    if (!isRetryable(exchange) || attempt >= s.maxRetries || request.signal?.aborted) {
      const tries = attempt > 0 ? ` (after ${attempt + 1} attempts)` : "";
      throw new ConnectorError(`${describeApiFailure(exchange)}${tries}`, exchange.failure ?? `http_${exchange.status}`);
    }
    await sleep(retryDelayMs(exchange, attempt), request.signal);
  }
}

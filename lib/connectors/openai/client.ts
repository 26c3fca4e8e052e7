// Requests to an OpenAI-compatible API: Bearer key, JSON in and out, requests spaced to the
// configured rate, and 408/429/5xx/no answer retried after Retry-After (else exponential backoff).
// A refusal of this one request (400, 413, 422, 424, or an answer that is not JSON) is a
// PredictionFailed, which the source reports on the row; anything else stops the read.
// Every request goes through shared/http.ts, so the outbound network policy applies.
import { ConnectorError, errorMessage } from "../shared/errors";
import { describeExchange, isRetryable, isSuccess, parseJsonBody, sendHttp, type HttpExchange } from "@/lib/net/http";
// The model kit's pieces: its spacing budget, Retry-After delay and "this row only" classification.
import { budgetKey, retryDelayMs, sleep, spend } from "../model-kit/budget";
import { isRowRefusal, PredictionFailed } from "../model-kit/http";
import type { OpenAiSettings } from "./settings";

/** Embedding responses of a large batch run to megabytes. */
const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

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

/** One API call with spacing and retries; returns the parsed JSON body or throws (PredictionFailed: this request only). */
export async function callApi(s: OpenAiSettings, request: ApiRequest): Promise<unknown> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (request.body !== undefined) headers["content-type"] = "application/json";
  if (s.apiKey) headers.authorization = `Bearer ${s.apiKey}`;
  const body = request.body === undefined ? undefined : JSON.stringify(request.body);
  const key = budgetKey(s.apiUrl, s.apiKey ?? "");
  for (let attempt = 0; ; attempt++) {
    await spend(key, { requestsPerMinute: s.requestsPerMinute, tokensPerMinute: 0 }, 0, request.signal);
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
    if (isSuccess(exchange)) return parseAnswer(exchange);
    if (!isRetryable(exchange) || attempt >= s.maxRetries || request.signal?.aborted) {
      const tries = attempt > 0 ? ` (after ${attempt + 1} attempts)` : "";
      const sentence = `${describeApiFailure(exchange)}${tries}`;
      if (isRowRefusal(exchange)) throw new PredictionFailed(sentence);
      throw new ConnectorError(sentence, exchange.failure ?? `http_${exchange.status}`);
    }
    await sleep(retryDelayMs(exchange.retryAfterSeconds, attempt), request.signal);
  }
}

/** A 2xx that is not JSON answers this request only (a proxy's page, a cut body): the row carries it. */
function parseAnswer(exchange: HttpExchange): unknown {
  try {
    return parseJsonBody(exchange);
  } catch (err) {
    throw new PredictionFailed(errorMessage(err));
  }
}

// Firecrawl v1 calls through the guarded fetch: POST /v1/crawl starts a crawl job, GET
// /v1/crawl/{id} tells its status and hands its results in pages (`next` links, each page at most
// 10 MB), DELETE /v1/crawl/{id} cancels it, GET /v1/crawl/active lists the running ones. A 429 is
// retried after Retry-After, or after the wait Firecrawl's error text names ("retry after 46s").
import { ConnectorError } from "../shared/errors";
import { describeExchange, isSuccess, type HttpExchange, type HttpMethod } from "../shared/http";
import { jsonOf, sendWithRetries } from "../shared/api-source";
import type { FirecrawlSettings } from "./definition";

/** Firecrawl's result pages are at most 10 MB; a little room for the JSON around them. */
const MAX_ANSWER_BYTES = 12 * 1024 * 1024;
const ATTEMPTS = 5;
const REQUEST_TIMEOUT_MS = 60_000;

/** The wait Firecrawl's rate-limit error names in its text. */
export function retryAfterText(exchange: HttpExchange): number | undefined {
  const seconds = /retry after (\d{1,5})\s*s/i.exec(exchange.bodyText)?.[1];
  return seconds !== undefined ? Math.min(Number(seconds), 300) : undefined;
}

/** Firecrawl's error sentence: its {success: false, error} body, or the status. */
export function firecrawlReason(exchange: HttpExchange): string {
  if (exchange.failure) return describeExchange(exchange);
  try {
    const error = (JSON.parse(exchange.bodyText) as { error?: unknown }).error;
    if (typeof error === "string" && error !== "") return `Firecrawl answered HTTP ${exchange.status}: ${error.slice(0, 300)}`;
  } catch {
    // Not JSON: the status says enough.
  }
  return `Firecrawl answered ${describeExchange(exchange)}`;
}

/**
 * One call to `url` (a path under the API root, or a `next` link Firecrawl gave). A link elsewhere
 * than the API's own origin is refused: the API key must never follow it.
 */
export async function callFirecrawl<T>(s: FirecrawlSettings, method: HttpMethod, url: string, body: unknown, signal?: AbortSignal): Promise<T> {
  const target = new URL(url, `${s.apiBase}/`);
  if (target.origin !== new URL(s.apiBase).origin) throw new ConnectorError(`Firecrawl pointed to ${target.host}, which is not its API; the read was stopped.`, "foreign_link");
  const exchange = await sendWithRetries(
    {
      url: target.toString(),
      method,
      headers: { authorization: `Bearer ${s.apiKey}`, accept: "application/json", ...(body !== undefined ? { "content-type": "application/json" } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
      timeoutMs: REQUEST_TIMEOUT_MS,
      signal,
      maxBodyBytes: MAX_ANSWER_BYTES,
      maxRedirects: 0,
    },
    { attempts: ATTEMPTS, baseDelayMs: 2000, retryAfter: retryAfterText },
  );
  if (!isSuccess(exchange)) throw new ConnectorError(firecrawlReason(exchange), exchange.failure === "blocked" ? "outbound_blocked" : `http_${exchange.status}`);
  return jsonOf(exchange, "Firecrawl") as T;
}

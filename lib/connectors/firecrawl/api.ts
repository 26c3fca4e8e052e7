// Firecrawl v1 calls through the guarded fetch: POST /v1/crawl starts a crawl job, GET
// /v1/crawl/{id} tells its status and hands its results in pages (`next` links, each page at most
// 10 MB), DELETE /v1/crawl/{id} cancels it, GET /v1/crawl/active lists the running ones. A 429 is
// retried after Retry-After, or after the wait Firecrawl's error text names ("retry after 46s").
import { ConnectorError } from "../shared/errors";
import { describeExchange, isSuccess, type HttpExchange, type HttpMethod } from "@/lib/net/http";
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
 * Where a call goes: a path of ours (`/v1/crawl`) under api_url, path included; a `next` link
 * Firecrawl gave (an absolute URL) only when it stays under api_url: same origin and under its path.
 * The API key must never follow a link elsewhere, another service on the same host included.
 */
export function firecrawlTarget(s: FirecrawlSettings, url: string): URL {
  const base = new URL(s.apiBase);
  const basePath = base.pathname.replace(/\/+$/, "");
  const target = URL.canParse(url) ? new URL(url) : new URL(`${base.origin}${basePath}${url.startsWith("/") ? "" : "/"}${url}`);
  if (target.origin !== base.origin || !target.pathname.startsWith(`${basePath}/`)) {
    throw new ConnectorError(`Firecrawl pointed to ${target.host}${target.pathname.slice(0, 80)}, which is not under its API (${base.host}${basePath || "/"}); the read was stopped.`, "foreign_link");
  }
  return target;
}

/** One call to `url` (a path under the API root, or a `next` link Firecrawl gave: see firecrawlTarget). */
export async function callFirecrawl<T>(s: FirecrawlSettings, method: HttpMethod, url: string, body: unknown, signal?: AbortSignal): Promise<T> {
  const target = firecrawlTarget(s, url);
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

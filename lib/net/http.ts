// The one HTTP client of the server: connectors, webhooks and alerts send through here. The outbound
// guard (policy.ts, re-checked on each redirect, and applied to the addresses each connection
// actually uses), a timeout covering headers and body, bounded body reads, secret headers masked.
// A record's log and outcome of an exchange are the connectors' (lib/connectors/shared/http-outcomes.ts).
import { Agent, fetch as undiciFetch, type Response as UndiciResponse } from "undici";
import { ConnectorError, errorMessage } from "./errors";
import { assertUrlAllowed, guardedLookup, OutboundBlockedError, systemResolver, type Resolver } from "./policy";
import { capRetryAfter } from "./retry-after";
import { SECRET_MASK } from "./secret-mask";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "OPTIONS" | "HEAD";

export interface HttpCall {
  url: string;
  method: HttpMethod;
  headers?: Record<string, string>;
  body?: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Header names (lowercase) whose values are masked in logs; configured headers are secret. */
  secretHeaders?: string[];
  /** Largest response body kept in memory (bytes); the rest is dropped. */
  maxBodyBytes?: number;
  /** Redirects followed (each target checked by the outbound guard); 0 answers the 3xx itself. Default 3. */
  maxRedirects?: number;
  /** Response headers (lowercase) kept besides the usual ones, e.g. a vendor's rate-limit headers. */
  keepHeaders?: readonly string[];
}

export interface HttpExchange {
  request: { method: string; url: string; headers: Record<string, string>; body?: string };
  /** Absent when no response arrived. */
  response?: { status: number; headers: Record<string, string>; body: string };
  status: number;
  /** The full (bounded) body, for callers that parse it. */
  bodyText: string;
  failure?: "blocked" | "timeout" | "network";
  error?: string;
  retryAfterSeconds?: number;
}

const LOG_BODY_LIMIT = 10 * 1024;
const KEPT_RESPONSE_HEADERS = ["content-type", "content-length", "retry-after", "x-request-id", "x-slack-req-id", "location", "date"];
const MAX_REDIRECTS = 3;

export function truncate(text: string, limit = LOG_BODY_LIMIT): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}… (${text.length - limit} more characters)`;
}

/** Seconds to wait, from `Retry-After: 12` or `Retry-After: <HTTP date>`, capped (retry-after.ts). */
export function parseRetryAfter(value: string | null): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return capRetryAfter(Math.ceil(Number(trimmed)));
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : capRetryAfter(Math.ceil((date - Date.now()) / 1000));
}

async function readBounded(response: UndiciResponse, maxBytes: number): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
    if (size >= maxBytes) {
      await reader.cancel().catch(() => undefined);
      break;
    }
  }
  return Buffer.concat(chunks).subarray(0, maxBytes).toString("utf8");
}

function maskedHeaders(headers: Record<string, string>, secret: string[]): Record<string, string> {
  const hidden = new Set([...secret.map((h) => h.toLowerCase()), "authorization", "x-signature-256"]);
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, hidden.has(k.toLowerCase()) ? SECRET_MASK : v]));
}

/** An undici dispatcher, as fetch's `dispatcher` option takes it. */
export type Dispatcher = Agent;

/**
 * A fetch dispatcher whose every new connection resolves its host through the outbound guard, so it
 * connects to exactly the addresses that were checked (no DNS rebinding between check and connect).
 */
export function guardedDispatcher(
  resolve: Resolver = systemResolver,
  options: { connectTimeoutMs?: number; keepAliveTimeoutMs?: number } = {},
): Dispatcher {
  // Used with undici's own fetch (the same implementation Node 20's global fetch is): a dispatcher
  // from one undici major is refused by another's fetch, and Node 22+ ships newer ones.
  const connect = { lookup: guardedLookup(resolve), ...(options.connectTimeoutMs !== undefined ? { timeout: options.connectTimeoutMs } : {}) };
  return new Agent({ connect, ...(options.keepAliveTimeoutMs !== undefined ? { keepAliveTimeout: options.keepAliveTimeoutMs } : {}) });
}

let sharedDispatcher: Dispatcher | undefined;

/**
 * One controller per request for the timeout and the caller's signal, released when the request
 * ends. (AbortSignal.any would tie every request to the run's long-lived signal, which in Node 20
 * makes each call slower than the last, and AbortSignal.timeout keeps its timer for the full timeout.)
 */
function requestSignal(timeoutMs: number, parent?: AbortSignal) {
  const controller = new AbortController();
  let expired = false;
  const timer = setTimeout(() => {
    expired = true;
    controller.abort(new DOMException("The request timed out.", "TimeoutError"));
  }, timeoutMs);
  const onAbort = () => controller.abort(parent?.reason);
  if (parent?.aborted) onAbort();
  else parent?.addEventListener("abort", onAbort, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => expired,
    dispose: () => {
      clearTimeout(timer);
      parent?.removeEventListener("abort", onAbort);
    },
  };
}

const CREDENTIAL_HEADERS = ["authorization", "proxy-authorization", "cookie"];

function withoutHeaders(headers: Record<string, string>, names: string[]): Record<string, string> {
  const dropped = new Set(names.map((n) => n.toLowerCase()));
  return Object.fromEntries(Object.entries(headers).filter(([k]) => !dropped.has(k.toLowerCase())));
}

/** Sends one request. Never throws for network trouble: the exchange says what happened. */
export async function sendHttp(call: HttpCall): Promise<HttpExchange> {
  const headers = { "user-agent": "datasync", ...(call.headers ?? {}) };
  const exchange: HttpExchange = {
    request: {
      method: call.method,
      url: call.url,
      headers: maskedHeaders(headers, call.secretHeaders ?? []),
      ...(call.body !== undefined ? { body: truncate(call.body) } : {}),
    },
    status: 0,
    bodyText: "",
  };
  const abort = requestSignal(call.timeoutMs, call.signal);
  const signal = abort.signal;
  let url = call.url;
  let method: string = call.method;
  let body = call.body;
  let sent: Record<string, string> = headers;
  try {
    for (let hop = 0; ; hop++) {
      assertUrlAllowed(url);
      sharedDispatcher ??= guardedDispatcher();
      // Redirects are followed by hand so that each target passes the outbound guard.
      const response = await undiciFetch(url, { method, headers: sent, body, signal, redirect: "manual", dispatcher: sharedDispatcher });
      const location = response.headers.get("location");
      if (response.status >= 300 && response.status < 400 && location && hop < (call.maxRedirects ?? MAX_REDIRECTS)) {
        await response.body?.cancel().catch(() => undefined);
        const next = new URL(location, url);
        // The configured headers are secrets for the configured origin only: a redirect elsewhere
        // (an open redirect on the receiver, say) must not carry them on.
        if (next.origin !== new URL(url).origin) sent = withoutHeaders(sent, [...(call.secretHeaders ?? []), ...CREDENTIAL_HEADERS]);
        url = next.toString();
        if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === "POST")) {
          method = "GET";
          body = undefined;
        }
        continue;
      }
      exchange.bodyText = await readBounded(response, call.maxBodyBytes ?? 1024 * 1024);
      exchange.status = response.status;
      exchange.retryAfterSeconds = parseRetryAfter(response.headers.get("retry-after"));
      exchange.response = {
        status: response.status,
        headers: Object.fromEntries([...KEPT_RESPONSE_HEADERS, ...(call.keepHeaders ?? [])].flatMap((h) => (response.headers.has(h) ? [[h, response.headers.get(h) ?? ""]] : []))),
        body: truncate(exchange.bodyText),
      };
      if (exchange.retryAfterSeconds === undefined) delete exchange.retryAfterSeconds;
      return exchange;
    }
  } catch (err) {
    const host = safeHost(url);
    // A refusal at connect time reaches us as fetch's TypeError with the guard's error as cause.
    const cause = (err as { cause?: unknown }).cause;
    const blocked = err instanceof ConnectorError ? err : cause instanceof OutboundBlockedError ? cause : undefined;
    if (blocked) {
      // The outbound guard, or a URL that does not parse: retrying cannot help.
      exchange.failure = "blocked";
      exchange.error = blocked.message;
    } else if (abort.timedOut()) {
      exchange.failure = "timeout";
      exchange.error = `No response from ${host} within ${call.timeoutMs / 1000} s.`;
    } else if (call.signal?.aborted) {
      exchange.failure = "network";
      exchange.error = "The request was cancelled.";
    } else {
      exchange.failure = "network";
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      exchange.error = `Could not reach ${host}: ${cause?.code ?? cause?.message ?? errorMessage(err)}.`;
    }
    return exchange;
  } finally {
    abort.dispose();
  }
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

export function isSuccess(exchange: HttpExchange): boolean {
  return !exchange.failure && exchange.status >= 200 && exchange.status < 300;
}

/** 408, 429, 5xx and timeouts/network errors are worth retrying; other 4xx are not. */
export function isRetryable(exchange: HttpExchange): boolean {
  if (exchange.failure) return exchange.failure !== "blocked";
  return exchange.status === 408 || exchange.status === 429 || exchange.status >= 500;
}

/** A short sentence for a failed exchange, e.g. `HTTP 500 from host: <body start>`. */
export function describeExchange(exchange: HttpExchange): string {
  if (exchange.error) return exchange.error;
  const snippet = exchange.bodyText.trim().slice(0, 300);
  const host = safeHost(exchange.request.url);
  return `HTTP ${exchange.status} from ${host}${snippet ? `: ${snippet}` : "."}`;
}

/** A URL as a log shows it: without user info (`https://user:token@host` carries a credential). */
export function logUrl(url: string): string {
  // Only a URL with an "@" can carry user info; parsing every URL would cost each batched record.
  if (!url.includes("@")) return url;
  try {
    const u = new URL(url);
    if (!u.username && !u.password) return url;
    u.username = "";
    u.password = "";
    return u.toString();
  } catch {
    return url;
  }
}

/** Parses a JSON body, with a sentence when it is not JSON. */
export function parseJsonBody(exchange: HttpExchange): unknown {
  try {
    return JSON.parse(exchange.bodyText);
  } catch {
    const snippet = exchange.bodyText.trim().slice(0, 120);
    throw new ConnectorError(
      `The response from ${safeHost(exchange.request.url)} is not valid JSON${snippet ? `: "${snippet}"` : " (empty body)"}.`,
    );
  }
}

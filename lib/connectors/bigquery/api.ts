// BigQuery REST API v2 calls (jobs.insert, jobs.getQueryResults, jobs.cancel, datasets.list), each
// through shared/http.ts sendHttp: the outbound guard checks every URL and connects to exactly the
// addresses it checked. The access token comes from the service account's signed assertion
// (rest-kit/oauth.ts, same guarded path). Throttling (429, 403 rateLimitExceeded) and 5xx backend
// errors are retried after Retry-After or a growing pause, a few times, stopping with the signal.
import type { Row } from "../types";
import { accessToken, forgetAccessToken, type JwtBearer } from "../rest-kit/oauth";
import { ConnectorError } from "../shared/errors";
import { sendHttp, type HttpExchange, type HttpMethod } from "@/lib/net/http";
import type { BigquerySettings } from "./definition";
import { abortableSleep } from "../shared/sleep";

const SCOPE = "https://www.googleapis.com/auth/bigquery";
const AUTH: JwtBearer = { kind: "jwt_bearer", field: "credentials_json", scope: SCOPE };
/**
 * One page of results is at most 10 MB (BigQuery's own cap); a little room for the JSON around it.
 * No more: parsed JSON takes many times its text, and the answering server is the Member's choice.
 */
export const MAX_PAGE_BYTES = 12 * 1024 * 1024;
const ATTEMPTS = 5;

export interface ApiCall {
  method: HttpMethod;
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  signal?: AbortSignal;
  /** Longest one HTTP exchange may take (long-polling calls wait on the server). */
  timeoutMs?: number;
}

interface ErrorBody {
  error?: { code?: number; message?: string; status?: string; errors?: { reason?: string; message?: string }[] };
}

function errorOf(exchange: HttpExchange): ErrorBody["error"] {
  try {
    return (JSON.parse(exchange.bodyText) as ErrorBody).error;
  } catch {
    return undefined;
  }
}

const THROTTLED = new Set(["rateLimitExceeded", "backendError", "internalError"]);

function throttled(exchange: HttpExchange): boolean {
  if (exchange.failure) return exchange.failure !== "blocked" && !exchange.error?.includes("cancelled");
  if (exchange.status === 429 || exchange.status >= 500) return true;
  return exchange.status === 403 && (errorOf(exchange)?.errors ?? []).some((e) => THROTTLED.has(e.reason ?? ""));
}

/** A sentence for a failed call: BigQuery's own message, what to do for the common refusals. */
export function describeFailure(exchange: HttpExchange): string {
  if (exchange.error) return exchange.error;
  const err = errorOf(exchange);
  const message = err?.message ?? (exchange.bodyText.trim().slice(0, 300) || `HTTP ${exchange.status}`);
  if (exchange.status === 401) return `BigQuery refused the access token: ${message}`;
  if (exchange.status === 403) return `BigQuery denied access (the service account needs the BigQuery Job User and Data Viewer roles): ${message}`;
  if (exchange.status === 404) return `BigQuery: ${message}`;
  return `BigQuery answered HTTP ${exchange.status}: ${message}`;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return abortableSleep(ms, signal, () => new ConnectorError("The read was cancelled."));
}

/** The configuration rest-kit/oauth reads the key from (private_key with real line breaks). */
function authConfig(s: BigquerySettings): Row {
  return { credentials_json: s.key };
}

/** Sends one API call and returns its parsed JSON; throws ConnectorError with BigQuery's reason. */
export async function callApi<T>(s: BigquerySettings, call: ApiCall): Promise<T> {
  let refreshed = false;
  for (let attempt = 1; ; attempt++) {
    if (call.signal?.aborted) throw new ConnectorError("The read was cancelled.");
    const token = await accessToken(s.apiBase, authConfig(s), AUTH, 30_000, "Google");
    const url = new URL(`${s.apiBase}/bigquery/v2${call.path}`);
    for (const [k, v] of Object.entries(call.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const exchange = await sendHttp({
      url: url.toString(),
      method: call.method,
      headers: { authorization: `Bearer ${token}`, accept: "application/json", ...(call.body !== undefined ? { "content-type": "application/json" } : {}) },
      body: call.body !== undefined ? JSON.stringify(call.body) : undefined,
      timeoutMs: call.timeoutMs ?? 60_000,
      signal: call.signal,
      maxBodyBytes: MAX_PAGE_BYTES,
      maxRedirects: 0,
    });
    if (exchange.status >= 200 && exchange.status < 300 && !exchange.failure) {
      try {
        return JSON.parse(exchange.bodyText) as T;
      } catch {
        throw new ConnectorError("BigQuery's answer was not valid JSON (cut short?).");
      }
    }
    if (exchange.status === 401 && !refreshed) {
      // An expired or revoked token: fetch a new one once.
      forgetAccessToken(s.apiBase, authConfig(s), AUTH);
      refreshed = true;
      continue;
    }
    if (call.signal?.aborted) throw new ConnectorError("The read was cancelled.");
    if (throttled(exchange) && attempt < ATTEMPTS) {
      const waitMs = exchange.retryAfterSeconds !== undefined ? exchange.retryAfterSeconds * 1000 : 500 * 2 ** (attempt - 1);
      await sleep(Math.min(waitMs, 60_000), call.signal);
      continue;
    }
    throw new ConnectorError(describeFailure(exchange), exchange.failure === "blocked" ? "outbound_blocked" : `http_${exchange.status}`);
  }
}

// QuickBooks Online calls: the OAuth 2.0 refresh-token grant at Intuit's token endpoint (client id
// and secret in a Basic header, as Intuit's docs send them) and the query endpoint
// (GET /v3/company/{realmId}/query?query=…), both through the guarded fetch. Intuit rotates refresh
// tokens: the newest one it hands back is kept (in this process) and used for the next grant. A
// throttle (429, Intuit allows 500 requests a minute per company) or a 5xx is retried after
// Retry-After or a growing pause; a 401 fetches a new access token once.
import { createHash } from "node:crypto";
import { ConnectorError } from "../shared/errors";
import { describeExchange, isSuccess, type HttpExchange } from "@/lib/net/http";
import { MAX_TOKEN_LENGTH, setBounded } from "../shared/bounded-cache";
import { jsonOf, sendWithRetries } from "../shared/api-source";
import type { QuickbooksSettings } from "./definition";

/** One page of query results at most (QuickBooks' own MAXRESULTS cap). */
export const MAX_PAGE_ROWS = 1000;
/** A page of 1000 entities with their lines stays well below this. */
const MAX_ANSWER_BYTES = 32 * 1024 * 1024;
const ATTEMPTS = 5;

interface Token {
  accessToken: string;
  expiresAt: number;
}

const tokens = new Map<string, Token>();
/** Per configured refresh token, the newest one Intuit handed back (it rotates them). */
const rotated = new Map<string, string>();

const basicAuth = (s: QuickbooksSettings) => `Basic ${Buffer.from(`${s.clientId}:${s.clientSecret}`).toString("base64")}`;

const credentialKey = (s: QuickbooksSettings) => createHash("sha256").update(`${s.tokenUrl}\0${s.clientId}\0${s.clientSecret}\0${s.refreshToken}`).digest("hex");

/** Intuit's error sentence from a token or API answer: {error, error_description} or {Fault: {Error: [{Message, Detail}]}}. */
export function intuitReason(exchange: HttpExchange): string {
  try {
    const body = JSON.parse(exchange.bodyText) as {
      error?: string;
      error_description?: string;
      Fault?: { type?: string; Error?: { Message?: string; Detail?: string; code?: string }[] };
      fault?: { type?: string; error?: { message?: string; detail?: string; code?: string }[] };
    };
    const oauth = [body.error, body.error_description].filter((v) => typeof v === "string").join(": ");
    if (oauth) return oauth.slice(0, 300);
    const fault = body.Fault?.Error?.[0] ?? (body.fault?.error?.[0] ? { Message: body.fault.error[0].message, Detail: body.fault.error[0].detail, code: body.fault.error[0].code } : undefined);
    if (fault) return [fault.Message, fault.Detail].filter((v) => typeof v === "string" && v !== "").join(": ").slice(0, 300) || `error ${fault.code ?? exchange.status}`;
  } catch {
    // Not JSON: the status says enough.
  }
  return describeExchange(exchange);
}

async function accessToken(s: QuickbooksSettings, signal?: AbortSignal): Promise<string> {
  const key = credentialKey(s);
  const cached = tokens.get(key);
  if (cached && cached.expiresAt > Date.now()) return cached.accessToken;
  const refreshToken = rotated.get(key) ?? s.refreshToken;
  const exchange = await sendWithRetries(
    {
      url: s.tokenUrl,
      method: "POST",
      headers: {
        authorization: basicAuth(s),
        "content-type": "application/x-www-form-urlencoded",
        accept: "application/json",
      },
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: refreshToken }).toString(),
      timeoutMs: s.timeoutMs,
      signal,
      // The form carries the refresh token: a redirect would send it on.
      maxRedirects: 0,
      maxBodyBytes: 64 * 1024,
    },
    { attempts: ATTEMPTS, baseDelayMs: 1000 },
  );
  if (exchange.failure) throw new ConnectorError(exchange.error ?? "Intuit's token endpoint did not answer.", exchange.failure === "blocked" ? "outbound_blocked" : "oauth_unavailable");
  if (!isSuccess(exchange)) throw new ConnectorError(`Intuit refused the refresh token (${intuitReason(exchange)}).`, "oauth_refused");
  const answer = jsonOf(exchange, "Intuit's token endpoint") as { access_token?: unknown; refresh_token?: unknown; expires_in?: unknown };
  if (typeof answer.access_token !== "string" || answer.access_token === "" || answer.access_token.length > MAX_TOKEN_LENGTH) {
    throw new ConnectorError("Intuit's token endpoint answered without an access token.");
  }
  if (typeof answer.refresh_token === "string" && answer.refresh_token !== "" && answer.refresh_token.length <= MAX_TOKEN_LENGTH) setBounded(rotated, key, answer.refresh_token);
  const lifetime = typeof answer.expires_in === "number" && answer.expires_in > 0 ? answer.expires_in : 3600;
  // Renewed a minute early, so a token never expires between the cache and the request.
  setBounded(tokens, key, { accessToken: answer.access_token, expiresAt: Date.now() + Math.max(0, lifetime - 60) * 1000 });
  return answer.access_token;
}

export interface QueryAnswer {
  /** The entity's name in the answer (Customer) and its rows; none when the page is empty. */
  entity?: string;
  rows: Record<string, unknown>[];
}

/** Runs one query statement (with its STARTPOSITION and MAXRESULTS); throws ConnectorError with Intuit's reason. */
export async function runQuery(s: QuickbooksSettings, statement: string, signal?: AbortSignal): Promise<QueryAnswer> {
  for (let renewed = false; ; renewed = true) {
    const token = await accessToken(s, signal);
    const url = new URL(`${s.apiBase}/v3/company/${encodeURIComponent(s.realmId)}/query`);
    url.searchParams.set("query", statement);
    if (s.minorVersion) url.searchParams.set("minorversion", s.minorVersion);
    const exchange = await sendWithRetries(
      { url: url.toString(), method: "GET", headers: { authorization: `Bearer ${token}`, accept: "application/json" }, timeoutMs: s.timeoutMs, signal, maxBodyBytes: MAX_ANSWER_BYTES, maxRedirects: 0 },
      { attempts: ATTEMPTS, baseDelayMs: 2000 },
    );
    if (exchange.status === 401 && !renewed) {
      // An expired or revoked access token: ask for a new one once.
      tokens.delete(credentialKey(s));
      continue;
    }
    if (!isSuccess(exchange)) {
      const code = exchange.failure === "blocked" ? "outbound_blocked" : `http_${exchange.status}`;
      throw new ConnectorError(exchange.failure ? describeExchange(exchange) : `QuickBooks answered HTTP ${exchange.status}: ${intuitReason(exchange)}`, code);
    }
    const body = jsonOf(exchange, "QuickBooks") as { QueryResponse?: Record<string, unknown>; Fault?: unknown };
    // QuickBooks reports some refusals (a bad query) inside a 200 answer.
    if (body.Fault) throw new ConnectorError(`QuickBooks refused the query: ${intuitReason(exchange)}`, "query_refused");
    for (const [entity, rows] of Object.entries(body.QueryResponse ?? {})) {
      if (Array.isArray(rows)) return { entity, rows: rows.filter((r): r is Record<string, unknown> => !!r && typeof r === "object" && !Array.isArray(r)) };
    }
    return { rows: [] };
  }
}

/**
 * The credentials this process made or was handed for `s`, which are in no configuration field: the
 * Basic header's encoded pair, the cached access token and Intuit's rotated refresh token. An answer
 * that echoes one of them must be scrubbed of it as of a configured secret.
 */
export function issuedSecrets(s: QuickbooksSettings): string[] {
  const key = credentialKey(s);
  const out = [basicAuth(s).slice("Basic ".length)];
  const access = tokens.get(key)?.accessToken;
  const refresh = rotated.get(key);
  if (access) out.push(access);
  if (refresh) out.push(refresh);
  return out;
}

/** Forgets every cached token (tests). */
export function forgetQuickbooksTokens(): void {
  tokens.clear();
  rotated.clear();
}

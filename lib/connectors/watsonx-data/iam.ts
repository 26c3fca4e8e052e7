// IBM Cloud IAM: an API key is exchanged for a bearer token (POST /identity/token, grant type
// urn:ibm:params:oauth:grant-type:apikey), which lasts `expires_in` seconds (an hour at most). Tokens
// are cached per (token address, API key), under a hash so no key sits in a map key, and renewed a
// minute before they expire; concurrent callers share one request.
import { createHash } from "node:crypto";
import { ConnectorError } from "../shared/errors";
import { isSuccess, sendHttp } from "@/lib/net/http";
import { MAX_TOKEN_LENGTH, setBounded } from "../shared/bounded-cache";
import type { WatsonxSettings } from "./config";

/** What a token request needs (watsonx.ai's source asks through here too). */
export type IamSettings = Pick<WatsonxSettings, "apiKey" | "iamUrl" | "timeoutMs">;

/** IAM tokens last an hour at most: a longer promised life is not believed. */
const MAX_LIFETIME_MS = 60 * 60_000;
/** Renew this long before the token's expiry, so no request leaves with a token about to lapse. */
const RENEW_BEFORE_MS = 60_000;

interface CachedToken {
  token: string;
  expiresAtMs: number;
}

/** Bounded (shared/bounded-cache): one process serves every workspace, each may try many API keys. */
const tokens = new Map<string, Promise<CachedToken>>();

function cacheKey(s: IamSettings): string {
  return createHash("sha256").update(`${s.iamUrl}\u0000${s.apiKey}`).digest("hex");
}

/** IAM's error body: `{"errorCode": "BXNIM0415E", "errorMessage": "Provided API key could not be found."}`. */
function iamReason(bodyText: string): string {
  try {
    const body = JSON.parse(bodyText) as { errorCode?: string; errorMessage?: string };
    if (body.errorMessage)
      return body.errorCode ? `${body.errorMessage} (${body.errorCode})` : body.errorMessage;
  } catch {
    // Not JSON: the status says enough.
  }
  return "";
}

async function requestToken(s: IamSettings, signal?: AbortSignal): Promise<CachedToken> {
  const body = new URLSearchParams({
    grant_type: "urn:ibm:params:oauth:grant-type:apikey",
    apikey: s.apiKey,
  }).toString();
  const exchange = await sendHttp({
    url: s.iamUrl,
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    body,
    timeoutMs: s.timeoutMs,
    signal,
    maxRedirects: 0,
  });
  const host = new URL(s.iamUrl).host;
  if (exchange.failure)
    throw new ConnectorError(`Could not get an IAM token from ${host}: ${exchange.error ?? "no answer"}`);
  if (!isSuccess(exchange)) {
    const reason = iamReason(exchange.bodyText);
    if (exchange.status === 400 || exchange.status === 401) {
      throw new ConnectorError(
        `IBM Cloud IAM refused the API key${reason ? `: ${reason}` : ` (HTTP ${exchange.status})`}. Check api_key.`,
      );
    }
    throw new ConnectorError(
      `IBM Cloud IAM at ${host} answered HTTP ${exchange.status}${reason ? `: ${reason}` : ""}; try again later.`,
    );
  }
  let parsed: { access_token?: unknown; expires_in?: unknown; expiration?: unknown };
  try {
    parsed = JSON.parse(exchange.bodyText) as typeof parsed;
  } catch {
    throw new ConnectorError(`IBM Cloud IAM at ${host} answered something that is not a token.`);
  }
  if (typeof parsed.access_token !== "string" || parsed.access_token === "") {
    throw new ConnectorError(`IBM Cloud IAM at ${host} answered without an access_token.`);
  }
  if (parsed.access_token.length > MAX_TOKEN_LENGTH) {
    throw new ConnectorError(
      `IBM Cloud IAM at ${host} answered an access_token longer than ${MAX_TOKEN_LENGTH} characters; check iam_url.`,
    );
  }
  const now = Date.now();
  const expiresAtMs =
    typeof parsed.expiration === "number"
      ? parsed.expiration * 1000
      : typeof parsed.expires_in === "number"
        ? now + parsed.expires_in * 1000
        : now + 5 * 60_000;
  return { token: parsed.access_token, expiresAtMs: Math.min(expiresAtMs, now + MAX_LIFETIME_MS) };
}

/** A valid bearer token for the settings' API key: cached, or fetched (once for concurrent callers). */
export async function iamToken(s: IamSettings, signal?: AbortSignal): Promise<string> {
  const key = cacheKey(s);
  const cached = tokens.get(key);
  if (cached) {
    const entry = await cached.catch(() => undefined);
    if (entry && entry.expiresAtMs - RENEW_BEFORE_MS > Date.now()) return entry.token;
    if (tokens.get(key) === cached) tokens.delete(key);
  }
  const pending = requestToken(s, signal);
  setBounded(tokens, key, pending);
  try {
    return (await pending).token;
  } catch (err) {
    if (tokens.get(key) === pending) tokens.delete(key);
    throw err;
  }
}

/** How many API keys' tokens are cached (tests). */
export function cachedIamTokenCount(): number {
  return tokens.size;
}

/** Forgets the cached token (the API refused it: revoked, or the clocks disagree). */
export function dropIamToken(s: IamSettings): void {
  tokens.delete(cacheKey(s));
}

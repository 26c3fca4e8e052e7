// OAuth 2.0 client credentials (RFC 6749 §4.4) for REST destinations: the access token is fetched
// from the vendor's token endpoint through the same outbound path as every request, cached per
// (base URL, client, secret) until it expires, and dropped when the API answers 401 so the retry
// fetches a new one. The client secret travels in the form body only, never in a log.
import { createHash } from "node:crypto";
import type { Row } from "../types";
import { stringField } from "../shared/config";
import { ConnectorError } from "../shared/errors";
import { isSuccess, sendHttp } from "../shared/http";

export interface ClientCredentials {
  kind: "oauth_client_credentials";
  /** Path of the token endpoint under the base URL, e.g. /services/oauth2/token. */
  tokenPath: string;
  clientIdField: string;
  clientSecretField: string;
  /** Cache lifetime when the answer has no expires_in. */
  defaultLifetimeSeconds?: number;
}

const cache = new Map<string, { token: string; expiresAt: number }>();

function cacheKey(baseUrl: string, config: Row, auth: ClientCredentials): string {
  const secret = stringField(config, auth.clientSecretField);
  return createHash("sha256").update(`${baseUrl}\0${stringField(config, auth.clientIdField)}\0${secret}`).digest("hex");
}

/** A cached or fresh access token; throws ConnectorError with the token endpoint's reason. */
export async function accessToken(baseUrl: string, config: Row, auth: ClientCredentials, timeoutMs: number, title: string): Promise<string> {
  const key = cacheKey(baseUrl, config, auth);
  const cached = cache.get(key);
  if (cached && cached.expiresAt > Date.now()) return cached.token;
  const body = new URLSearchParams({
    grant_type: "client_credentials",
    client_id: stringField(config, auth.clientIdField),
    client_secret: stringField(config, auth.clientSecretField),
  }).toString();
  const exchange = await sendHttp({
    url: `${baseUrl}${auth.tokenPath}`,
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    body,
    timeoutMs,
  });
  if (exchange.failure) throw new ConnectorError(exchange.error ?? "The token endpoint did not answer.");
  let answer: { access_token?: string; expires_in?: number; error?: string; error_description?: string } = {};
  try {
    answer = JSON.parse(exchange.bodyText) as typeof answer;
  } catch {
    // Not JSON: the status says enough.
  }
  if (!isSuccess(exchange) || !answer.access_token) {
    const reason = [answer.error, answer.error_description].filter(Boolean).join(": ") || `HTTP ${exchange.status}`;
    throw new ConnectorError(`${title} refused the client credentials (${reason}).`, "oauth_refused");
  }
  const lifetime = (answer.expires_in ?? auth.defaultLifetimeSeconds ?? 600) * 1000;
  // Renewed a minute early, so a token never expires between the cache and the request.
  cache.set(key, { token: answer.access_token, expiresAt: Date.now() + Math.max(0, lifetime - 60_000) });
  return answer.access_token;
}

/** The API refused the token (expired session, revoked app): the next request fetches a new one. */
export function forgetAccessToken(baseUrl: string, config: Row, auth: ClientCredentials): void {
  cache.delete(cacheKey(baseUrl, config, auth));
}

// OAuth 2.0 for REST destinations, two server-to-server grants: client credentials (RFC 6749 §4.4,
// or a refresh token of the same client, §6, where the configuration holds one)
// and a JWT assertion signed with a service account's private key (RFC 7523, as Google uses). The
// access token is fetched through the same outbound path as every request, cached per credential
// until it expires, and dropped when the API answers 401 so the retry fetches a new one. Secrets
// travel in the form body only (the private key never leaves: only the signed assertion does).
import { createHash, createSign } from "node:crypto";
import type { Row } from "../types";
import { stringField } from "../shared/config";
import { ConnectorError } from "../shared/errors";
import { isSuccess, sendHttp } from "@/lib/net/http";
import { MAX_TOKEN_LENGTH, setBounded, TOKEN_CACHE_LIMIT } from "../shared/bounded-cache";

export interface ClientCredentials {
  kind: "oauth_client_credentials";
  /** Path of the token endpoint under the base URL, e.g. /services/oauth2/token. */
  tokenPath: string;
  /**
   * The token endpoint's full URL when it is on another host than the API (Microsoft Entra ID's
   * login.microsoftonline.com/<tenant>); it wins over tokenPath. Throws ConnectorError when the
   * configuration cannot name it.
   */
  tokenUrl?: (config: Row) => string;
  /** The `scope` the token is asked for, when the endpoint wants one (Entra ID: <resource>/.default). */
  scope?: (config: Row) => string;
  clientIdField: string;
  clientSecretField: string;
  /**
   * A refresh token field: when the configuration holds one, the token comes from the refresh
   * token grant (RFC 6749 §6) with the same client, as a connected app authorised by a user gives.
   */
  refreshTokenField?: string;
  /** Cache lifetime when the answer has no expires_in. */
  defaultLifetimeSeconds?: number;
  /**
   * The resource owner password grant (RFC 6749 §4.3), used when the configuration holds the
   * username: the password is the concatenation of `passwordFields` (Salesforce appends the user's
   * security token to the password).
   */
  password?: { usernameField: string; passwordFields: string[] };
  /**
   * The answer's instance_url (Salesforce) is where the API lives when the token comes from a login
   * host: requests go there. Taken only over https, or on the token endpoint's own origin.
   */
  instanceUrl?: boolean;
}

export interface JwtBearer {
  kind: "jwt_bearer";
  /** The secret field holding the service account key (JSON: client_email, private_key, token_uri). */
  field: string;
  scope: string;
}

interface ServiceAccount {
  client_email: string;
  private_key: string;
  token_uri: string;
}

/** The service account key of the configuration, checked enough to sign with. */
export function serviceAccount(config: Row, auth: JwtBearer): ServiceAccount {
  const raw = config[auth.field];
  let key: Partial<ServiceAccount> = {};
  try {
    key = (typeof raw === "string" ? JSON.parse(raw) : raw) as Partial<ServiceAccount>;
  } catch {
    throw new ConnectorError("The service account key is not valid JSON: paste the whole key file.");
  }
  if (typeof key?.client_email !== "string" || typeof key.private_key !== "string" || typeof key.token_uri !== "string" || !/^https?:\/\//.test(key.token_uri)) {
    throw new ConnectorError("The service account key needs client_email, private_key and token_uri: paste the whole key file.");
  }
  return { client_email: key.client_email, private_key: key.private_key, token_uri: key.token_uri };
}

const base64url = (value: string | Buffer) => Buffer.from(value).toString("base64url");

/** An RS256-signed assertion of the service account for `scope`, valid one hour. */
export function jwtAssertion(account: ServiceAccount, scope: string, now = Date.now()): string {
  const iat = Math.floor(now / 1000);
  const header = base64url(JSON.stringify({ alg: "RS256", typ: "JWT" }));
  const claims = base64url(JSON.stringify({ iss: account.client_email, scope, aud: account.token_uri, iat, exp: iat + 3600 }));
  let signature: Buffer;
  try {
    signature = createSign("RSA-SHA256").update(`${header}.${claims}`).sign(account.private_key);
  } catch {
    throw new ConnectorError("The service account's private_key cannot sign: paste the whole key file.");
  }
  return `${header}.${claims}.${base64url(signature)}`;
}

type OAuth = ClientCredentials | JwtBearer;

const cache = new Map<string, { token: string; expiresAt: number; instanceUrl?: string }>();
export { MAX_TOKEN_LENGTH, TOKEN_CACHE_LIMIT };

/** ConnectorError code of a token endpoint that did not answer, or answered 429/5xx: worth a retry. */
export const TOKEN_UNAVAILABLE = "oauth_unavailable";

function cacheKey(baseUrl: string, config: Row, auth: OAuth): string {
  const credential =
    auth.kind === "jwt_bearer"
      ? `${JSON.stringify(serviceAccount(config, auth))}\0${auth.scope}`
      : `${auth.tokenUrl?.(config) ?? baseUrl}\0${auth.scope?.(config) ?? ""}\0${stringField(config, auth.clientIdField)}\0${stringField(config, auth.clientSecretField)}\0${refreshToken(config, auth) ?? ""}\0${JSON.stringify(passwordGrant(config, auth) ?? null)}`;
  return createHash("sha256").update(`${auth.kind}\0${credential}`).digest("hex");
}

/** Where the token is asked for, and the form that asks. */
function tokenRequest(baseUrl: string, config: Row, auth: OAuth): { url: string; form: Record<string, string> } {
  if (auth.kind === "jwt_bearer") {
    const account = serviceAccount(config, auth);
    return { url: account.token_uri, form: { grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion: jwtAssertion(account, auth.scope) } };
  }
  const client = { client_id: stringField(config, auth.clientIdField), client_secret: stringField(config, auth.clientSecretField) };
  const refresh = refreshToken(config, auth);
  const scope: Record<string, string> = auth.scope ? { scope: auth.scope(config) } : {};
  const password = passwordGrant(config, auth);
  return {
    url: auth.tokenUrl?.(config) ?? `${baseUrl}${auth.tokenPath}`,
    form: password
      ? { grant_type: "password", ...client, ...password, ...scope }
      : refresh
        ? { grant_type: "refresh_token", refresh_token: refresh, ...client, ...scope }
        : { grant_type: "client_credentials", ...client, ...scope },
  };
}

/** The password grant's username and password, when the configuration has a username. */
function passwordGrant(config: Row, auth: ClientCredentials): { username: string; password: string } | undefined {
  if (!auth.password) return undefined;
  const username = config[auth.password.usernameField];
  if (typeof username !== "string" || username === "") return undefined;
  const password = auth.password.passwordFields.map((f) => (typeof config[f] === "string" ? String(config[f]) : "")).join("");
  return { username, password };
}

function refreshToken(config: Row, auth: ClientCredentials): string | undefined {
  const value = auth.refreshTokenField ? config[auth.refreshTokenField] : undefined;
  return typeof value === "string" && value !== "" ? value : undefined;
}

interface TokenAnswer {
  access_token?: string;
  instance_url?: string;
  expires_in?: number;
  error?: string;
  error_description?: string;
}

/** The token endpoint's answer, each member kept only when it has its type (the endpoint may be anything a tenant typed). */
function tokenAnswer(text: string): TokenAnswer {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON: the status says enough.
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return {};
  const raw = parsed as Record<string, unknown>;
  const textOf = (v: unknown) => (typeof v === "string" && v !== "" ? v.slice(0, 300) : undefined);
  const expiresIn = raw.expires_in;
  return {
    access_token: typeof raw.access_token === "string" && raw.access_token !== "" && raw.access_token.length <= MAX_TOKEN_LENGTH ? raw.access_token : undefined,
    expires_in: typeof expiresIn === "number" && Number.isFinite(expiresIn) && expiresIn >= 0 ? expiresIn : undefined,
    instance_url: typeof raw.instance_url === "string" && raw.instance_url.length <= 300 ? raw.instance_url : undefined,
    error: textOf(raw.error),
    error_description: textOf(raw.error_description),
  };
}

/** A cached or fresh access token; throws ConnectorError with the token endpoint's reason. */
export async function accessToken(baseUrl: string, config: Row, auth: OAuth, timeoutMs: number, title: string): Promise<string> {
  return (await tokenSession(baseUrl, config, auth, timeoutMs, title)).token;
}

/** The answer's instance URL, when the grant asks for it and it may carry the token. */
function instanceUrlOf(baseUrl: string, auth: OAuth, answer: TokenAnswer): string | undefined {
  if (auth.kind !== "oauth_client_credentials" || !auth.instanceUrl || !answer.instance_url) return undefined;
  let url: URL;
  try {
    url = new URL(answer.instance_url);
  } catch {
    return undefined;
  }
  if (url.protocol !== "https:" && url.origin !== new URL(baseUrl).origin) return undefined;
  return url.origin;
}

/** A cached or fresh access token and, for grants that name one, the instance URL the API is at. */
export async function tokenSession(baseUrl: string, config: Row, auth: OAuth, timeoutMs: number, title: string): Promise<{ token: string; instanceUrl?: string }> {
  const key = cacheKey(baseUrl, config, auth);
  const cached = cache.get(key);
  if (cached && cached.expiresAt > Date.now()) return { token: cached.token, instanceUrl: cached.instanceUrl };
  const { url, form } = tokenRequest(baseUrl, config, auth);
  const body = new URLSearchParams(form).toString();
  const exchange = await sendHttp({
    url,
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    body,
    timeoutMs,
    // The form carries the client secret (or the signed assertion): a 307/308 would send it on to
    // wherever the answer points, so a redirect is answered as a refusal instead of followed.
    maxRedirects: 0,
  });
  if (exchange.failure) {
    throw new ConnectorError(exchange.error ?? "The token endpoint did not answer.", exchange.failure === "blocked" ? "outbound_blocked" : TOKEN_UNAVAILABLE);
  }
  const answer = tokenAnswer(exchange.bodyText);
  if (!isSuccess(exchange) || !answer.access_token) {
    const reason = [answer.error, answer.error_description].filter(Boolean).join(": ") || `HTTP ${exchange.status}`;
    if (exchange.status === 429 || exchange.status >= 500) throw new ConnectorError(`${title}'s token endpoint is unavailable (${reason}).`, TOKEN_UNAVAILABLE);
    const what = auth.kind === "jwt_bearer" ? "the service account" : form.grant_type === "refresh_token" ? "the refresh token" : form.grant_type === "password" ? "the username and password" : "the client credentials";
    throw new ConnectorError(`${title} refused ${what} (${reason}).`, "oauth_refused");
  }
  const lifetime = (answer.expires_in ?? (auth.kind === "oauth_client_credentials" ? auth.defaultLifetimeSeconds : undefined) ?? 600) * 1000;
  // Renewed a minute early, so a token never expires between the cache and the request.
  const instanceUrl = instanceUrlOf(baseUrl, auth, answer);
  setBounded(cache, key, { token: answer.access_token, expiresAt: Date.now() + Math.max(0, lifetime - 60_000), instanceUrl });
  return { token: answer.access_token, instanceUrl };
}

/** How many credentials' tokens are cached (tests). */
export function cachedTokenCount(): number {
  return cache.size;
}

/** The API refused the token (expired session, revoked app): the next request fetches a new one. */
export function forgetAccessToken(baseUrl: string, config: Row, auth: OAuth): void {
  cache.delete(cacheKey(baseUrl, config, auth));
}

// One request of a REST destination, through the shared outbound path (shared/http.ts sendHttp: the
// network policy, DNS-rebinding-safe connections, timeouts, bounded bodies, masked credential
// headers in every log).
import type { Row } from "../types";
import { optionalString, secondsToMs, stringField } from "../shared/config";
import { ConnectorError } from "../shared/errors";
import { isRetryable, isSuccess, sendHttp, type HttpExchange } from "@/lib/net/http";
import { capRetryAfter } from "@/lib/net/retry-after";
import { credentialTexts as headerCredentialTexts, redact } from "../shared/secrets";
import { exactJson } from "../shared/values";
import { formBody } from "./form";
import { forgetAccessToken, tokenSession } from "./oauth";
import type { AuthScheme, RestDestinationSpec, RestRequest, RestResponse } from "./types";

export interface RestClient {
  /** Where requests go: the base URL, or the instance URL the token endpoint named. */
  baseUrl: string;
  /** Where the token came from (its cache key). */
  authBaseUrl: string;
  timeoutMs: number;
  headers: Record<string, string>;
  /** Header names whose values logs mask (the credential's). */
  secretHeaders: string[];
}

async function authHeaders(spec: RestDestinationSpec, config: Row, baseUrl: string, timeoutMs: number): Promise<{ headers: Record<string, string>; instanceUrl?: string }> {
  const auth: AuthScheme = spec.auth;
  if (auth.kind === "oauth_client_credentials" || auth.kind === "jwt_bearer") {
    const session = await tokenSession(baseUrl, config, auth, timeoutMs, spec.definition.title);
    return { headers: { authorization: `Bearer ${session.token}` }, instanceUrl: session.instanceUrl };
  }
  return { headers: staticAuthHeaders(auth, config) };
}

function staticAuthHeaders(auth: Exclude<AuthScheme, { kind: "oauth_client_credentials" | "jwt_bearer" }>, config: Row): Record<string, string> {
  const secret = stringField(config, auth.field);
  switch (auth.kind) {
    case "bearer":
      return { authorization: `Bearer ${secret}` };
    case "header":
      return { [auth.header]: `${auth.prefix ?? ""}${secret}` };
    case "basic": {
      const username = typeof auth.username === "string" ? auth.username : stringField(config, auth.username.field);
      return { authorization: `Basic ${Buffer.from(`${username}:${secret}`).toString("base64")}` };
    }
  }
}

/** Where requests go and the headers that authenticate them (fetching an OAuth token when needed). */
export async function restClient(spec: RestDestinationSpec, config: Row): Promise<RestClient> {
  const baseUrl = (optionalString(config, "base_url") ?? (typeof spec.baseUrl === "function" ? spec.baseUrl(config) : spec.baseUrl)).replace(/\/+$/, "");
  const timeoutMs = secondsToMs(config, "timeout", 30);
  const { headers, instanceUrl } = await authHeaders(spec, config, baseUrl, timeoutMs);
  return { baseUrl: instanceUrl ?? baseUrl, authBaseUrl: baseUrl, timeoutMs, headers, secretHeaders: Object.keys(headers) };
}

/**
 * The credential as it travels (a Basic header's base64 pair, a Bearer token): a vendor that echoes
 * the request in its error would otherwise show it, encoded, where the configured secret is masked.
 */
export function credentialTexts(client: RestClient): string[] {
  return Object.values(client.headers).flatMap((value) => headerCredentialTexts(value));
}

/** After a 401: an OAuth token is dropped, so the retry authenticates afresh. False when nothing can change. */
export function renewAuth(spec: RestDestinationSpec, client: RestClient, config: Row): boolean {
  if (spec.auth.kind !== "oauth_client_credentials" && spec.auth.kind !== "jwt_bearer") return false;
  forgetAccessToken(client.authBaseUrl, config, spec.auth);
  return true;
}

export function urlOf(client: RestClient, request: RestRequest): string {
  const url = new URL(`${client.baseUrl}${request.path}`);
  for (const [key, value] of Object.entries(request.query ?? {})) {
    for (const v of Array.isArray(value) ? value : [value]) url.searchParams.append(key, v);
  }
  return url.toString();
}

export function sendRest(
  spec: RestDestinationSpec,
  client: RestClient,
  request: RestRequest,
  signal?: AbortSignal,
): Promise<HttpExchange> {
  // exactJson: a number inside a source's JSON goes as written, not as the value model's marker.
  const form = request.encoding === "form";
  const body = request.body === undefined ? undefined : form ? formBody(request.body as Record<string, unknown>) : exactJson(request.body);
  const contentType: Record<string, string> = body === undefined ? {} : { "content-type": form ? "application/x-www-form-urlencoded" : "application/json" };
  return sendHttp({
    url: urlOf(client, request),
    method: request.method,
    headers: { accept: "application/json", ...contentType, ...spec.headers, ...request.headers, ...client.headers },
    body,
    timeoutMs: client.timeoutMs,
    signal,
    secretHeaders: client.secretHeaders,
    keepHeaders: spec.rateLimitHeaders,
  });
}

/** The exchange as the vendor hooks read it (body parsed when it is JSON). */
export function responseOf(exchange: HttpExchange): RestResponse {
  let body: unknown;
  try {
    body = exchange.bodyText ? (JSON.parse(exchange.bodyText) as unknown) : undefined;
  } catch {
    body = undefined;
  }
  return { status: exchange.status, body, headers: exchange.response?.headers ?? {} };
}

/** A hook's request that did not answer 2xx; `retryable` as a record's outcome would be. */
export class RestCallError extends ConnectorError {
  constructor(
    message: string,
    readonly status: number,
    readonly retryable: boolean,
    /** The answer's wait (Retry-After, or the vendor's rule for a 429), so a throttled hook is waited out too. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message, `http_${status}`);
    this.name = "RestCallError";
  }
}

/**
 * An authenticated request for hooks (discovery, preparing a write, following a job): the parsed
 * answer, or a RestCallError with the vendor's sentence, scrubbed of `secrets`.
 */
export function restCall(spec: RestDestinationSpec, client: RestClient, secrets: string[], signal?: AbortSignal) {
  return async (request: RestRequest): Promise<RestResponse> => {
    const exchange = await sendRest(spec, client, request, signal);
    const response = responseOf(exchange);
    if (!isSuccess(exchange)) {
      const retryable = isRetryable(exchange);
      const vendorWait = !exchange.failure && exchange.status === 429 ? spec.retryAfter?.(response) : undefined;
      const wait = retryable ? (exchange.retryAfterSeconds ?? (vendorWait !== undefined && Number.isFinite(vendorWait) ? capRetryAfter(Math.ceil(vendorWait)) : undefined)) : undefined;
      throw new RestCallError(redact(describeFailure(spec, exchange, response), secrets), exchange.status, retryable, wait);
    }
    return response;
  };
}

/** The vendor's sentence for a failed exchange: its own error text when the hook finds one. */
export function describeFailure(spec: RestDestinationSpec, exchange: HttpExchange, response: RestResponse): string {
  if (exchange.failure) return exchange.error ?? "No response.";
  const text = spec.errorText?.(response);
  const snippet = exchange.bodyText.trim().slice(0, 300);
  if (text) return `${spec.definition.title} answered HTTP ${exchange.status}: ${text}`;
  return `HTTP ${exchange.status} from ${new URL(exchange.request.url).host}${snippet ? `: ${snippet}` : "."}`;
}

// A typed client of the public API for programs outside the console (the datasync CLI, scripts):
// openapi-fetch over the types openapi-typescript generates from our OpenAPI document
// (lib/api-client/generated, `npm run openapi:generate`), authenticated by an API token
// (POST /api/v1/api_tokens) instead of the console's session cookie.
import createClient, { type Client } from "openapi-fetch";
import { queryString } from "./client";
import type { paths } from "./generated/openapi";

export type PublicApiClient = Client<paths>;

export interface PublicApiOptions {
  /** Where the server is, e.g. https://datasync.example.com. */
  baseUrl: string;
  /** An API token (or a session token from POST /api/v1/login). */
  token: string;
  /** The workspace to act in; an API token is bound to one already. */
  workspaceId?: number;
  /** For tests: the fetch to send requests with. */
  fetch?: typeof fetch;
}

/** The API never redirects: a redirect would carry the token to wherever it points, so it stops the call. */
export class RedirectRefused extends Error {
  constructor(readonly location: string | null) {
    super(
      `The server answered with a redirect${location ? ` to ${location}` : ""}; the token was not sent there. ` +
        "Set the client's URL (DATASYNC_URL) to the server's final address.",
    );
    this.name = "RedirectRefused";
  }
}

function refusingRedirects(send: typeof fetch): typeof fetch {
  return async (input, init) => {
    const response = await send(input instanceof Request ? new Request(input, { redirect: "manual" }) : input, { ...init, redirect: "manual" });
    if (response.status >= 300 && response.status < 400 && response.status !== 304) {
      await response.body?.cancel();
      throw new RedirectRefused(response.headers.get("location"));
    }
    return response;
  };
}

export function createPublicApiClient(options: PublicApiOptions): PublicApiClient {
  return createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    fetch: refusingRedirects(options.fetch ?? ((input, init) => globalThis.fetch(input, init))),
    querySerializer: queryString,
    headers: {
      Accept: "application/json",
      Authorization: `Bearer ${options.token}`,
      ...(options.workspaceId ? { "Workspace-Id": String(options.workspaceId) } : {}),
    },
  });
}

/** The request body of an operation that takes JSON (e.g. "/api/v1/config/apply"). */
export type JsonBody<P extends keyof paths> = paths[P] extends { post: { requestBody?: { content: { "application/json": infer B } } } } ? B : never;

/** A sentence (and the field lines) of the API's error body {message, errors: [{detail}]}. */
export function errorLines(status: number, body: unknown): string[] {
  const err = body !== null && typeof body === "object" ? (body as { message?: unknown; errors?: unknown }) : {};
  const message = typeof err.message === "string" && err.message ? err.message : `The request failed (HTTP ${status}).`;
  const details = Array.isArray(err.errors)
    ? err.errors.flatMap((e: unknown) => (e && typeof e === "object" && typeof (e as { detail?: unknown }).detail === "string" ? [`  - ${(e as { detail: string }).detail}`] : []))
    : [];
  return [`Error (HTTP ${status}): ${message}`, ...details];
}

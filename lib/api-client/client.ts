// The console's one way to the REST API: the client generated from the OpenAPI document, sending
// same-origin requests authenticated by the httpOnly next-auth session cookie (page scripts never
// hold the API token; the API reads it from the cookie, lib/http/credentials.ts, and the browser's
// Sec-Fetch-Site/Origin headers prove the request comes from our pages), with the Workspace-Id
// header. Every non-2xx answer becomes an ApiError carrying the API's own {message, status, errors}
// so forms and toasts can show exactly what the server said.
import createClient, { type Client } from "openapi-fetch";
import { pointerPath, type ErrorItem } from "@/lib/http/error-body";
import type { paths } from "./generated/openapi";

/** Cookie holding the selected workspace id (read by the console layout on the server). */
export const WORKSPACE_COOKIE = "ds_workspace";

export type { ErrorItem };

export class ApiError extends Error {
  constructor(
    message: string,
    readonly httpStatus: number,
    readonly code: string,
    /** The body's error items (lib/http/error-body.ts); field errors carry source.pointer. */
    readonly errors: ErrorItem[] = [],
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export interface ApiClientOptions {
  workspaceId?: number | null;
  /** Called once when the API says the token is no longer valid (401). */
  onUnauthorized?: () => void;
  /**
   * True once the console signed out (or learnt the session ended): from then on no request goes
   * out; each is answered 401 at once, so polling pages stop hitting the API (and the browser logs
   * no failed requests) while the console leaves for the sign-in page.
   */
  signedOut?: () => boolean;
  /** Where the API is; the console's pages call their own origin (""). */
  baseUrl?: string;
  /** For tests: the fetch to send requests with. */
  fetch?: typeof fetch;
}

/** What an operation's client call resolves to (openapi-fetch): the body of a success or of an error. */
export interface Answer<D> {
  data?: D;
  error?: unknown;
  response: Response;
}

/**
 * The query string as the API reads it: empty values (a form's "any") are left out, arrays repeat
 * their key. openapi-fetch's own serializer would send `search=` for an empty search box.
 */
export function queryString(query: Record<string, unknown> | undefined): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item === undefined || item === null || item === "") continue;
      params.append(key, String(item));
    }
  }
  return params.toString();
}

function errorOf(status: number, body: unknown): ApiError {
  const err = body !== null && typeof body === "object" ? (body as { message?: unknown; status?: unknown; errors?: unknown }) : {};
  return new ApiError(
    typeof err.message === "string" && err.message ? err.message : `The request failed (HTTP ${status}).`,
    status,
    typeof err.status === "string" && err.status ? err.status : "error",
    Array.isArray(err.errors) ? (err.errors as ErrorItem[]) : [],
  );
}

/** What a request made after signing out is answered, without reaching the server. */
function signedOutAnswer(): Response {
  const body = { message: "You are signed out. Sign in again.", status: "unauthorized", errors: [] };
  return new Response(JSON.stringify(body), { status: 401, headers: { "Content-Type": "application/json" } });
}

/**
 * openapi-fetch over the document the server serves (lib/api-client/generated, written by
 * `npm run openapi:generate`): paths, parameters, bodies and, where the document has a schema,
 * answers are typed. Calls go out with the session cookie (same origin) and the Workspace-Id header;
 * `ok()` turns any answer but a success into an ApiError.
 */
export class ApiClient {
  readonly GET: Client<paths>["GET"];
  readonly POST: Client<paths>["POST"];
  readonly PUT: Client<paths>["PUT"];
  readonly PATCH: Client<paths>["PATCH"];
  readonly DELETE: Client<paths>["DELETE"];

  constructor(private readonly options: ApiClientOptions) {
    const send = (request: Request) => (options.fetch ?? globalThis.fetch)(request);
    const client = createClient<paths>({
      baseUrl: options.baseUrl ?? "",
      fetch: (request: Request) => (options.signedOut?.() ? Promise.resolve(signedOutAnswer()) : send(request)),
      headers: { Accept: "application/json" },
      credentials: "same-origin",
      cache: "no-store",
      querySerializer: queryString,
    });
    const workspaceId = options.workspaceId;
    if (workspaceId) {
      client.use({
        onRequest: ({ request }) => {
          request.headers.set("Workspace-Id", String(workspaceId));
          return request;
        },
      });
    }
    // openapi-fetch's methods are closures over their client, so they can be handed out as they are.
    ({ GET: this.GET, POST: this.POST, PUT: this.PUT, PATCH: this.PATCH, DELETE: this.DELETE } = client);
  }

  get workspaceId(): number | null | undefined {
    return this.options.workspaceId;
  }

  /** The body of a successful answer (undefined for 204); any other answer throws an ApiError with the API's own words. */
  async ok<D>(pending: Promise<Answer<D>>): Promise<D> {
    let answer: Answer<D>;
    try {
      answer = await pending;
    } catch (err) {
      if (err instanceof Error && err.name === "AbortError") throw new ApiError("The request was cancelled.", 0, "aborted");
      throw new ApiError("The server could not be reached. Check your connection and try again.", 0, "network_error");
    }
    if (answer.response.ok) return answer.data as D;
    if (answer.response.status === 401) this.options.onUnauthorized?.();
    throw errorOf(answer.response.status, answer.error);
  }
}

/** A human sentence for any thrown value. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

/**
 * Field errors of a 422 keyed by the dotted path of their `source.pointer` with the given prefixes
 * removed, e.g. `/connector/configuration/host` → `host` with prefix `connector.configuration`.
 * The message is the item's detail without its leading `<path>: ` (the form field already says
 * which field it is). Items without a pointer (parameters, whole-request problems) are left out.
 */
export function fieldErrors(err: unknown, ...prefixes: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  if (!(err instanceof ApiError)) return out;
  for (const e of err.errors) {
    const pointer = e.source && "pointer" in e.source ? e.source.pointer : undefined;
    if (pointer === undefined || typeof e.detail !== "string") continue;
    const full = pointerPath(pointer);
    const message = e.detail.startsWith(`${full || "body"}: `) ? e.detail.slice((full || "body").length + 2) : e.detail;
    let path = full;
    for (const prefix of prefixes) {
      if (path === prefix) path = "";
      else if (path.startsWith(`${prefix}.`)) path = path.slice(prefix.length + 1);
    }
    out[path] = out[path] ? `${out[path]}; ${message}` : message;
  }
  return out;
}

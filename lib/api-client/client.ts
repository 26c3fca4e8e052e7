// The console's one way to the REST API: same-origin requests authenticated by the httpOnly
// next-auth session cookie (page scripts never hold the API token; the API reads it from the cookie,
// lib/http/credentials.ts), with the Workspace-Id header. Parses JSON, and turns every non-2xx
// answer into an ApiError carrying the API's own {message, status, errors} so forms and toasts can
// show exactly what the server said.
import { pointerPath, type ErrorItem } from "@/lib/http/error-body";

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
}

type Query = Record<string, string | number | boolean | null | undefined>;

export function withQuery(path: string, query?: Query): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === "") continue;
    params.set(key, String(value));
  }
  const qs = params.toString();
  return qs ? `${path}${path.includes("?") ? "&" : "?"}${qs}` : path;
}

export class ApiClient {
  constructor(private readonly options: ApiClientOptions) {}

  get workspaceId(): number | null | undefined {
    return this.options.workspaceId;
  }

  async request<T>(method: string, path: string, body?: unknown, query?: Query): Promise<T> {
    const headers: Record<string, string> = { Accept: "application/json" };
    if (this.options.workspaceId) headers["Workspace-Id"] = String(this.options.workspaceId);
    if (body !== undefined) headers["Content-Type"] = "application/json";
    let res: Response;
    try {
      res = await fetch(withQuery(path, query), {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        cache: "no-store",
        credentials: "same-origin",
      });
    } catch {
      throw new ApiError("The server could not be reached. Check your connection and try again.", 0, "network_error");
    }
    if (res.status === 204) return undefined as T;
    const text = await res.text();
    let json: unknown = undefined;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON */
    }
    if (!res.ok) {
      const err = (json ?? {}) as { message?: string; status?: string; errors?: ErrorItem[] };
      if (res.status === 401) this.options.onUnauthorized?.();
      throw new ApiError(
        err.message || `The request failed (HTTP ${res.status}).`,
        res.status,
        err.status || "error",
        Array.isArray(err.errors) ? err.errors : [],
      );
    }
    return json as T;
  }

  get<T>(path: string, query?: Query) {
    return this.request<T>("GET", path, undefined, query);
  }
  post<T>(path: string, body?: unknown) {
    return this.request<T>("POST", path, body ?? {});
  }
  put<T>(path: string, body?: unknown) {
    return this.request<T>("PUT", path, body ?? {});
  }
  patch<T>(path: string, body?: unknown) {
    return this.request<T>("PATCH", path, body ?? {});
  }
  delete<T>(path: string) {
    return this.request<T>("DELETE", path);
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

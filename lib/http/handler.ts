// The one wrapper every route handler goes through: request id, authentication, workspace,
// permission check, body/query/params parsing with zod, the success status, and error mapping.
// Route files name their operation's declaration (lib/contract) and make the service call.
import { randomUUID } from "node:crypto";
import type { NextRequest } from "next/server";
import type { ZodType } from "zod";
import { can } from "@/lib/auth/permissions";
import { refusal } from "@/lib/auth/refusal";
import { exactJson } from "@/lib/connectors/shared/values";
import { ConfigSyntaxError } from "@/lib/config-as-code/yaml";
import { parseConfigYamlOffThread } from "@/lib/config-as-code/yaml-off-thread";
import type { Operation, Reply } from "@/lib/contract/operation";
import { refusalVerb } from "@/lib/contract/refusal-verbs";
import { BadRequest, Forbidden, PayloadTooLarge, RateLimited, UnsupportedMediaType, ValidationFailed } from "@/lib/errors";
import { logger, withLogContext } from "@/lib/logger";
import { authenticate, type AuthContext } from "@/lib/services/accounts/auth-context";
import { requestToken } from "./credentials";
import { errorResponse, fieldSummary, zodFieldErrors } from "./errors";
import { BODY_TOO_LARGE_MESSAGE, MAX_BODY_BYTES } from "./body-limit";
import { trustProxy } from "./forwarded";
import { withPublicOrigin } from "./public-origin";
import { recall, remember, rememberKey } from "./remembered";

/** Deeper JSON is refused: no request shape nests past a handful of levels, and recursion over it would overflow. */
export const MAX_JSON_DEPTH = 64;

export interface HandlerContext<P, Q, B> {
  req: NextRequest;
  url: URL;
  params: P;
  query: Q;
  body: B;
  auth: AuthContext;
  requestId: string;
}

interface RouteOptions {
  /**
   * Throws when the route is switched off by configuration (e.g. sign-up). Runs first, before
   * authentication and parsing, so a switched-off route answers the same whatever is sent.
   */
  available?: () => void;
  /**
   * The answer depends on the database, the caller and the request alone (no clock, no outside
   * system, no side effect): it is kept and served again while the database has not changed
   * (lib/http/remembered.ts). Read operations only.
   */
  remember?: boolean;
}

type RouteContext = { params: Promise<Record<string, string | string[]>> };

const YAML_TYPE = /^\s*(application|text)\/(x-)?yaml\s*(;|$)/i;

/** The body as JSON, or (operations with `yamlBody`, Content-Type application/yaml or text/yaml) as YAML. */
async function readJson(req: NextRequest, yamlBody = false): Promise<unknown> {
  const length = Number(req.headers.get("content-length") ?? 0);
  if (length > MAX_BODY_BYTES) throw new PayloadTooLarge(BODY_TOO_LARGE_MESSAGE);
  const type = req.headers.get("content-type") ?? "";
  const yaml = yamlBody && YAML_TYPE.test(type);
  if (type && !yaml && !/json|text\/plain/i.test(type)) {
    throw new UnsupportedMediaType(
      yamlBody
        ? "Send the request body as YAML (Content-Type: application/yaml) or JSON (Content-Type: application/json)."
        : "Send the request body as JSON (Content-Type: application/json).",
    );
  }
  const reader = req.body?.getReader();
  if (!reader) return undefined;
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel();
      throw new PayloadTooLarge(BODY_TOO_LARGE_MESSAGE);
    }
    chunks.push(value);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  if (!text.trim()) return undefined;
  let value: unknown;
  try {
    value = yaml ? await parseConfigYamlOffThread(text) : JSON.parse(text);
  } catch (err) {
    if (err instanceof ConfigSyntaxError) throw new BadRequest(err.message);
    if (err instanceof RateLimited) throw err;
    throw new BadRequest(yaml ? "The request body could not be read as YAML." : "The request body is not valid JSON.");
  }
  if (depthOver(value, MAX_JSON_DEPTH)) {
    throw new BadRequest(`The request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels; flatten it.`);
  }
  const at = nulPath(value);
  if (at !== undefined) {
    throw ValidationFailed.field(at, "must not contain the NUL character (\\u0000)");
  }
  return value;
}

/** Whether JSON nests deeper than `max` levels; iterative, so no depth can overflow the stack. */
export function depthOver(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== "object") continue;
    if (depth >= max) return true;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * The dotted path of the first string (value or key) holding U+0000, which PostgreSQL cannot store
 * in text or jsonb; undefined when there is none.
 */
function nulPath(value: unknown, path: string[] = []): string | undefined {
  if (typeof value === "string") return value.includes("\u0000") ? path.join(".") : undefined;
  if (value === null || typeof value !== "object") return undefined;
  for (const [key, child] of Object.entries(value)) {
    if (key.includes("\u0000")) return [...path, key].join(".");
    const found = nulPath(child, [...path, key]);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Query strings as an object; `key[]` and repeated keys become arrays. */
export function queryObject(params: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [rawKey, value] of params) {
    const isArray = rawKey.endsWith("[]");
    const key = isArray ? rawKey.slice(0, -2) : rawKey;
    const existing = out[key];
    if (isArray || existing !== undefined) {
      out[key] = [...(Array.isArray(existing) ? existing : existing !== undefined ? [existing] : []), value];
    } else out[key] = value;
  }
  return out;
}

function parseWith<T>(schema: ZodType<T> | undefined, input: unknown, where: "params" | "query" | "body"): T {
  if (!schema) return input as T;
  // The input goes into the issues so their messages can say what came (lib/validation/messages.ts).
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return result.data;
  // Path and query problems are malformed requests (400); a well-formed body that breaks rules is 422.
  if (where === "body") {
    throw ValidationFailed.fromFields(zodFieldErrors(result.error));
  }
  const errors = zodFieldErrors(result.error, where === "params" ? "path" : "query");
  const kind = where === "params" ? "path parameter" : "query parameter";
  throw new BadRequest(`Invalid ${kind}: ${fieldSummary(errors, where)}`, { errors });
}

/**
 * The URL as the client addressed it: links in responses must use the Host the client used, not
 * the address the server was started on (a custom server makes req.url say localhost). Forwarded
 * host and protocol are a proxy's word, believed only with TRUST_PROXY=1.
 */
export function publicUrl(req: Request): URL {
  const url = new URL(req.url);
  const trusted = trustProxy();
  const host = (trusted && req.headers.get("x-forwarded-host")) || req.headers.get("host");
  if (host && /^[\w.-]+(:\d{1,5})?$|^\[[\da-f:]+\](:\d{1,5})?$/i.test(host)) {
    // A host without a port means the scheme's default; the host setter alone would keep ours.
    url.port = "";
    url.host = host;
  }
  const proto = trusted ? req.headers.get("x-forwarded-proto") : null;
  if (proto === "https" || proto === "http") url.protocol = `${proto}:`;
  return url;
}

const READ_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

const jsonResponse = (text: string, status: number) => new Response(text, { status, headers: { "content-type": "application/json" } });

const ANONYMOUS: AuthContext = {
  user: { id: 0, email: "", name: "" },
  workspaceId: 0,
  roleId: 0,
  roleName: "",
  policies: { permissions: {} },
  tokenKind: "session",
  jti: "",
  snapshot: "",
};

/**
 * The route handler of `op`: `handler` gets the parsed request and returns the success body (the
 * input of the operation's response schema), which goes out with the declared status.
 */
export function route<P, Q, B, R extends ZodType | undefined>(
  op: Operation<P, Q, B, R>,
  handler: (ctx: HandlerContext<P, Q, B>) => Promise<Reply<R>>,
  options: RouteOptions = {},
) {
  return async (req: NextRequest, context?: RouteContext): Promise<Response> => {
    const requestId = req.headers.get("x-request-id")?.replace(/[^\w.-]/g, "").slice(0, 64) || randomUUID();
    // The origin as the client addressed it (Host, or a trusted proxy's forwarded headers).
    const url = publicUrl(req);
    return withLogContext({ requestId }, () => withPublicOrigin(url.origin, () => handle(req, context, requestId, url)));
  };

  async function handle(req: NextRequest, context: RouteContext | undefined, requestId: string, url: URL): Promise<Response> {
    const started = performance.now();
    let response: Response;
    try {
      // Every route, with or without a body schema: an oversized declared body is refused unread.
      if (Number(req.headers.get("content-length") ?? 0) > MAX_BODY_BYTES) {
        throw new PayloadTooLarge(BODY_TOO_LARGE_MESSAGE);
      }
      options.available?.();
      const auth =
        op.permission === "public"
          ? ANONYMOUS
          : await authenticate(
              await requestToken(req),
              req.headers.get("workspace-id"),
              op.permission === "user" ? "any" : "selected",
            );
      // In-path-workspace operations are checked by their service against the workspace of the path.
      if (typeof op.permission === "object" && !op.inPathWorkspace) {
        const [resource, action] = op.permission;
        if (!can(auth.policies, resource, action)) {
          throw new Forbidden(refusal(auth, resource, action, refusalVerb(op)));
        }
      }
      for (const [key, value] of url.searchParams) {
        if (key.includes("\u0000") || value.includes("\u0000")) {
          const name = key.replace(/\u0000/g, "");
          throw new BadRequest(`Invalid query parameter: ${name} must not contain the NUL character (%00).`, {
            errors: [{ path: name, in: "query", message: "must not contain the NUL character (%00)" }],
          });
        }
      }
      const params = parseWith(op.params, (await context?.params) ?? {}, "params");
      const query = parseWith(op.query, queryObject(url.searchParams), "query");
      const body = op.body ? parseWith(op.body, await readJson(req, op.yamlBody), "body") : (undefined as B);
      const key = options.remember && READ_METHODS.has(req.method) && auth.snapshot ? rememberKey(op.operationId, auth, url) : undefined;
      const kept = key === undefined ? undefined : recall(key, auth.snapshot);
      if (kept) {
        response = jsonResponse(kept.body, kept.status);
      } else {
        const result = await handler({ req, url, params, query, body, auth, requestId });
        // A non-JSON answer (`produces`: a CSV download) is built by its handler.
        if (result instanceof Response) response = result;
        else if (op.status === 204) response = new Response(null, { status: 204 });
        else {
          // exactJson: a number inside a source's JSON (records, plans) is written as its digits (values.ts).
          const text = exactJson(result);
          if (key !== undefined) remember(key, auth.snapshot, op.status, text);
          response = jsonResponse(text, op.status);
        }
      }
    } catch (err) {
      response = errorResponse(err, requestId);
    }
    response.headers.set("x-request-id", requestId);
    // Checked first: below the level the line is not even built (this runs on every request).
    if (logger.isLevelEnabled("info")) {
      logger.info(
        {
          requestId,
          method: req.method,
          path: req.nextUrl.pathname,
          status: response.status,
          ms: Math.round(performance.now() - started),
        },
        "request",
      );
    }
    return response;
  }
}

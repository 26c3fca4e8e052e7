// The shape of one endpoint's declaration: everything the route wrapper (lib/http/handler.ts), the
// OpenAPI document (lib/openapi/document.ts) and the permission-matrix test need, written once.
// Declarations live in the per-resource modules of this folder; they hold zod schemas and types
// only, so tests, the document builder and the console can load them without the server.
import type { z, ZodType } from "zod";
import type { Action, Resource } from "@/lib/auth/permissions";
import type { Tag } from "./tags";

/**
 * What a caller needs: `[resource, action]` checked against its role in the selected workspace,
 * `"member"` any member of the selected workspace, `"user"` any signed-in user whatever the
 * Workspace-Id header says (user-level calls never 404 on the header), `"public"` nothing.
 */
export type Permission = readonly [Resource, Action] | "member" | "user" | "public";

export type Method = "get" | "post" | "put" | "patch" | "delete";

export type SuccessStatus = 200 | 201 | 204;

/**
 * Error statuses an operation answers beyond those its declaration implies (400 for parameters,
 * 401 unless public, 403 for a `[resource, action]` permission, 404 for path ids, 413/415/422 for
 * a body: lib/openapi/document.ts derives those).
 */
export type ExtraErrorStatus = 401 | 403 | 404 | 409 | 422 | 424 | 429 | 503;

export interface Operation<P = unknown, Q = unknown, B = unknown, R extends ZodType | undefined = ZodType | undefined> {
  operationId: string;
  method: Method;
  /** OpenAPI path template; placeholder names are the API's (they may differ from folder names). */
  path: string;
  tag: Tag;
  summary: string;
  /** What the schemas cannot say: when an error status is answered, side effects, caveats. */
  notes?: string;
  permission: Permission;
  /**
   * The permission is checked by the service in the workspace named in the path (workspace and
   * member endpoints); the wrapper then only requires membership of the selected workspace.
   */
  inPathWorkspace?: boolean;
  params?: ZodType<P>;
  query?: ZodType<Q>;
  body?: ZodType<B>;
  /** The body may be left out. */
  bodyOptional?: boolean;
  /** The body may also come as YAML (Content-Type application/yaml or text/yaml), read into the same schema. */
  yamlBody?: true;
  status: SuccessStatus;
  /** The success body; absent for 204 and for answers that are not JSON (see `produces`). */
  response?: R;
  /** A success body that is not JSON: its media type and what it holds. */
  produces?: { mediaType: string; description: string };
  errors?: readonly ExtraErrorStatus[];
  /** When the operation answers 302 with a Location instead (next-auth's form posts). */
  redirects?: string;
  /** Not an endpoint: a catch-all route that answers any undeclared path with a JSON 404. */
  catchAll?: true;
  /** Served outside the API wrapper by another library (next-auth); documented, not walked by tests. */
  external?: true;
}

/**
 * What a handler returns for an operation: the input of its response schema, or nothing for 204,
 * or (operations that `produces` another media type) the Response itself.
 */
export type Reply<R> = R extends ZodType ? z.input<R> : void | Response;

/** Declares one operation, keeping the zod types of its schemas for the route wrapper. */
export function operation<
  P = Record<string, never>,
  Q = Record<string, never>,
  B = undefined,
  R extends ZodType | undefined = undefined,
>(op: Operation<P, Q, B, R>): Operation<P, Q, B, R> {
  return op;
}

// The OpenAPI 3.1 document of the whole API, built from the operation declarations (lib/contract):
// the same zod schemas the route wrapper validates requests with, and the response schemas the
// serializers are typed by. GET /api/v1/openapi.json serves it and the console's /docs/api page
// renders it; lib/openapi/document.test.ts checks it against the route files and validates it.
import { OpenAPIRegistry, OpenApiGeneratorV31, type ResponseConfig } from "@asteasolutions/zod-to-openapi";
import { z, type ZodObject, type ZodType } from "zod";
import { OPERATIONS, TAGS, type Operation } from "@/lib/contract";
import { errorBodySchema } from "@/lib/http/error-body";

export const ERROR_CODES: Record<number, string> = {
  400: "bad_request: malformed JSON or an invalid path/query parameter (errors[].source.parameter names it).",
  401: "unauthorized: missing, invalid, expired or revoked token.",
  403: "forbidden: your role may not do this.",
  404: "not_found: unknown, or in a workspace you cannot see.",
  409: "conflict: the current state does not allow it.",
  413: "payload_too_large: the body is larger than 1 MB.",
  415: "unsupported_media_type: send the body as JSON.",
  422: "validation_failed: the body breaks a rule; each errors[] item points at one field (source.pointer).",
  424: "failed_dependency: the resource is not in a state that allows it (e.g. the sync is disabled).",
  429: "rate_limited: too many attempts; see Retry-After.",
  503: "service_unavailable: a dependency (the database) is down; try again shortly.",
};

/** The permission as a sentence, for descriptions and the reference page. */
export function permissionText(op: Pick<Operation, "permission" | "inPathWorkspace">): string {
  if (op.permission === "public") return "Public: no token needed.";
  if (op.permission === "member") return "Any member of the workspace.";
  if (op.permission === "user") return "Any signed-in user, whatever the Workspace-Id header.";
  const [resource, action] = op.permission;
  return `Requires ${resource}.${action}${op.inPathWorkspace ? " in the workspace of the path" : ""}.`;
}

const placeholders = (path: string) => [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);

/** The error statuses an operation answers: those its declaration implies, plus the ones it names. */
export function errorStatuses(op: Operation): number[] {
  if (op.catchAll) return [404];
  const implied = [
    ...(op.params || op.query || op.body ? [400] : []),
    ...(op.permission !== "public" ? [401] : []),
    ...(typeof op.permission === "object" ? [403] : []),
    ...(placeholders(op.path).length ? [404] : []),
    ...(op.body ? [413, 415, 422] : []),
  ];
  return [...new Set([...implied, ...(op.errors ?? [])])].sort((a, b) => a - b);
}

/** Path parameters: the declared schema, or strings for the segments a route does not parse. */
function pathParams(op: Operation): ZodObject | undefined {
  const names = placeholders(op.path);
  if (!names.length) return undefined;
  if (op.params) return asObject(op.params);
  return z.object(Object.fromEntries(names.map((n) => [n, z.string()])));
}

/**
 * zod-to-openapi takes parameters as an object schema: a preprocessed one (folder renames) or a
 * transformed one (paging) is unwrapped to the object the caller sends.
 */
function asObject(schema: ZodType): ZodObject {
  if (schema instanceof z.ZodObject) return schema;
  if (schema instanceof z.ZodPipe) {
    if (schema.out instanceof z.ZodObject) return schema.out;
    if (schema.in instanceof z.ZodObject) return schema.in;
  }
  throw new Error("Parameters must be declared as an object schema.");
}

function successResponse(op: Operation): ResponseConfig {
  const description = op.produces?.description ?? (op.status === 204 ? "No content." : "Success.");
  if (op.response) return { description, content: { "application/json": { schema: op.response } } };
  if (op.produces) {
    // JSON of a shape this API does not define (next-auth's answers) is any JSON, not a string.
    const schema = op.produces.mediaType === "application/json" ? z.unknown() : z.string();
    return { description, content: { [op.produces.mediaType]: { schema } } };
  }
  return { description };
}

function build() {
  const registry = new OpenAPIRegistry();
  const bearer = registry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
    description: "A session token from POST /api/v1/login or an API token. Workspace-Id header selects the workspace.",
  });
  const workspaceHeader = z.object({
    "workspace-id": z
      .string()
      .regex(/^\d+$/)
      .optional()
      .describe("The workspace to act in; absent or 0: your default (first) workspace."),
  });

  for (const op of OPERATIONS) {
    const params = pathParams(op);
    const errors = Object.fromEntries(
      errorStatuses(op).map((code) => [
        code,
        { description: op.catchAll ? (op.notes ?? "") : ERROR_CODES[code], content: { "application/json": { schema: errorBodySchema } } },
      ]),
    );
    registry.registerPath({
      operationId: op.operationId,
      method: op.method,
      path: op.path,
      tags: [op.tag],
      summary: op.summary,
      description: [permissionText(op), op.notes].filter(Boolean).join(" "),
      security: op.permission === "public" ? [] : [{ [bearer.name]: [] }],
      request: {
        ...(params ? { params } : {}),
        ...(op.query ? { query: asObject(op.query) } : {}),
        ...(op.permission !== "public" ? { headers: workspaceHeader } : {}),
        ...(op.body
          ? {
              body: {
                required: !op.bodyOptional,
                content: {
                  "application/json": { schema: op.body },
                  ...(op.yamlBody ? { "application/yaml": { schema: op.body }, "text/yaml": { schema: op.body } } : {}),
                },
              },
            }
          : {}),
      },
      responses: {
        ...(op.catchAll ? {} : { [op.status]: successResponse(op) }),
        ...(op.redirects ? { 302: { description: op.redirects, headers: { Location: { schema: { type: "string" } } } } } : {}),
        ...errors,
      },
      "x-permission": Array.isArray(op.permission) ? op.permission.join(".") : op.permission,
      ...(op.catchAll ? { "x-not-an-endpoint": true } : {}),
    });
  }

  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: "3.1.0",
    info: {
      title: "Datasync API",
      version: "1.0.0",
      description:
        "Reverse ETL: connectors, models, syncs and their runs. Bearer JWT on every endpoint but login; errors are {message, status, errors: [{status, title, detail, source?}]}; lists are paginated with page/per_page (or page[number]/page[size]), 25 by default, at most 100.",
    },
    servers: [{ url: "/" }],
    tags: TAGS.map((t) => ({ ...t })),
  });
}

let cached: ReturnType<typeof build> | undefined;

/** The document, built once per process. */
export function openApiDocument(): ReturnType<typeof build> {
  cached ??= build();
  return cached;
}

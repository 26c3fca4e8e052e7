// The one error body of every response (behaviour.md section 3): the interface's {message, status}
// plus JSON:API-style `errors` items, which the reference console reads (ui/src/services/common.ts
// ErrorResponse; it toasts `errors[].detail`). Every error gets at least one item; a field error's
// item points at the field. Kept free of server-only imports: the HTTP server's body limit
// (scripts/start.ts) and the route mapper (./errors.ts) both build their bodies here.
import { z } from "zod";
import type { FieldError } from "@/lib/errors";

/** Where an item's problem is: a JSON pointer into the body, or a query/path parameter or header. */
const errorSourceSchema = z
  .union([
    z.strictObject({ pointer: z.string().describe("JSON pointer into the request body, e.g. /sync/schedule_type.") }),
    z.strictObject({ parameter: z.string().describe("The query or path parameter, e.g. page.") }),
    z.strictObject({ header: z.string().describe("The request header, e.g. Workspace-Id.") }),
  ])
  .describe("Where the problem is; only for a problem with one field, parameter or header.");
export type ErrorSource = z.infer<typeof errorSourceSchema>;

const errorItemSchema = z
  .strictObject({
    status: z.string().describe('The HTTP status as a string, e.g. "422".'),
    title: z.string().describe("The error code, the same as the body's status, e.g. validation_failed."),
    detail: z.string().describe("A sentence about this problem; for a field it begins with the field's dotted path."),
    source: errorSourceSchema.optional(),
  })
  .describe("One problem, JSON:API style (what the reference console reads).")
  .meta({ id: "ErrorItem" });
export type ErrorItem = z.infer<typeof errorItemSchema>;

/** The body of every error response; `.meta({id})` makes it one entry of the OpenAPI components. */
export const errorBodySchema = z
  .strictObject({
    message: z.string().describe("A sentence a person can act on."),
    status: z.string().describe("The error code, e.g. not_found."),
    errors: z.array(errorItemSchema).min(1).describe("At least one item: one per field problem, else one repeating the message."),
  })
  .describe("The one error body of every endpoint.")
  .meta({ id: "Error" });
export type ErrorBody = z.infer<typeof errorBodySchema>;

/** A dotted body path as a JSON pointer (RFC 6901): `sync.configuration.0.to` → `/sync/configuration/0/to`. */
export function jsonPointer(path: string): string {
  if (!path) return "";
  return path
    .split(".")
    .map((segment) => `/${segment.replace(/~/g, "~0").replace(/\//g, "~1")}`)
    .join("");
}

/** The dotted body path a JSON pointer names (the inverse of jsonPointer). */
export function pointerPath(pointer: string): string {
  return pointer
    .split("/")
    .slice(1)
    .map((segment) => segment.replace(/~1/g, "/").replace(/~0/g, "~"))
    .join(".");
}

function source(field: FieldError): ErrorSource {
  switch (field.in) {
    case "query":
    case "path":
      // The parameter itself, not a position inside it (connector_ids.0 → connector_ids).
      return { parameter: field.path.split(".")[0] };
    case "header":
      return { header: field.path };
    default:
      return { pointer: jsonPointer(field.path) };
  }
}

/** The item of one field problem: its detail names the field, so it reads on its own in a toast. */
export function fieldItem(httpStatus: number, code: string, field: FieldError): ErrorItem {
  return {
    status: String(httpStatus),
    title: code,
    detail: `${field.path || "body"}: ${field.message}`,
    source: source(field),
  };
}

/** The body of an error response: one item per field problem, or one item repeating the message. */
export function errorBody(httpStatus: number, code: string, message: string, fields: readonly FieldError[] = []): ErrorBody {
  const errors = fields.length
    ? fields.map((f) => fieldItem(httpStatus, code, f))
    : [{ status: String(httpStatus), title: code, detail: message }];
  return { message, status: code, errors };
}

/** An error response with that body. */
export function errorJson(
  httpStatus: number,
  code: string,
  message: string,
  options: { fields?: readonly FieldError[]; headers?: Record<string, string> } = {},
): Response {
  return Response.json(errorBody(httpStatus, code, message, options.fields), {
    status: httpStatus,
    headers: options.headers,
  });
}

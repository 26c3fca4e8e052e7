// The one error body of every response (docs/architecture.md, "Errors"): the contract's {message, status}
// plus JSON:API-style `errors` items, which the reference console reads (ui/src/services/common.ts
// ErrorResponse; it toasts `errors[].detail`). Every error gets at least one item; a field error's
// item points at the field. Kept free of server-only imports: the HTTP server's body limit
// (scripts/start.ts) and the route mapper (./errors.ts) both build their bodies here.
import type { FieldError } from "@/lib/errors";

/** Where an item's problem is: a JSON pointer into the body, or a query/path parameter or header. */
export type ErrorSource = { pointer: string } | { parameter: string } | { header: string };

export interface ErrorItem {
  /** The HTTP status, as a string (JSON:API). */
  status: string;
  /** The error code, e.g. validation_failed (the same as the body's `status`). */
  title: string;
  /** A sentence about this occurrence; for a field error it names the field. */
  detail: string;
  source?: ErrorSource;
}

export interface ErrorBody {
  message: string;
  status: string;
  errors: ErrorItem[];
}

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

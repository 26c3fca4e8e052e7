// Typed errors thrown deep (services, engine) and shaped once by the HTTP layer
// (lib/http/error-body.ts) into {message, status, errors: [{status, title, detail, source?}]}.
// A plain Error that reaches the mapper is a 500 and a bug.

/** One problem with one input, as services and schemas report it; the HTTP layer shapes it. */
export interface FieldError {
  /** Dotted path into the JSON body (`sync.schedule_type`), or the name of a parameter or header. */
  path: string;
  /** What is wrong, as a predicate of the field: `is required`, `must be one of: a, b`. */
  message: string;
  /** Where `path` points; default the request body. */
  in?: "body" | "query" | "path" | "header";
}

export abstract class AppError extends Error {
  abstract readonly httpStatus: number;
  abstract readonly code: string;
  readonly errors?: FieldError[];
  readonly headers?: Record<string, string>;

  constructor(message: string, options?: { errors?: FieldError[]; headers?: Record<string, string> }) {
    super(message);
    this.name = new.target.name;
    this.errors = options?.errors;
    this.headers = options?.headers;
  }
}

export class BadRequest extends AppError {
  readonly httpStatus = 400;
  readonly code = "bad_request";
}
export class Unauthorized extends AppError {
  readonly httpStatus = 401;
  readonly code = "unauthorized";
}
export class Forbidden extends AppError {
  readonly httpStatus = 403;
  readonly code = "forbidden";
}
export class NotFound extends AppError {
  readonly httpStatus = 404;
  readonly code = "not_found";
}
export class Conflict extends AppError {
  readonly httpStatus = 409;
  readonly code = "conflict";
}
export class PayloadTooLarge extends AppError {
  readonly httpStatus = 413;
  readonly code = "payload_too_large";
}
export class UnsupportedMediaType extends AppError {
  readonly httpStatus = 415;
  readonly code = "unsupported_media_type";
}
/** Field problems as one phrase: `sync.name: is required; sync.model_id: must be an integer`. */
export function fieldSummary(errors: readonly FieldError[], whole = "body"): string {
  return errors.map((e) => `${e.path || whole}: ${e.message}`).join("; ");
}

export class ValidationFailed extends AppError {
  readonly httpStatus = 422;
  readonly code = "validation_failed";

  /** The 422 of one or more field problems, its message in the one wording: "Validation failed: a: …; b: …". */
  static fromFields(errors: FieldError[]): ValidationFailed {
    return new ValidationFailed(`Validation failed: ${fieldSummary(errors)}`, { errors });
  }

  /** The 422 of one problem with the field at `path`. */
  static field(path: string, message: string): ValidationFailed {
    return ValidationFailed.fromFields([{ path, message }]);
  }
}
export class FailedDependency extends AppError {
  readonly httpStatus = 424;
  readonly code = "failed_dependency";
}
export class RateLimited extends AppError {
  readonly httpStatus = 429;
  readonly code = "rate_limited";
}
export class ServiceUnavailable extends AppError {
  readonly httpStatus = 503;
  readonly code = "service_unavailable";
}

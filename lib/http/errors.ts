// The one mapper from thrown errors to the error body {message, status[, errors]}.
import { ZodError } from "zod";
import { AppError, type FieldError } from "@/lib/errors";
import { Prisma } from "@/lib/generated/prisma/client";
import { logger } from "@/lib/logger";

export interface ErrorBody {
  message: string;
  status: string;
  errors?: FieldError[];
}

export function zodFieldErrors(err: ZodError, prefix: string[] = []): FieldError[] {
  return err.issues.map((issue) => ({
    path: [...prefix, ...issue.path.map(String)].join("."),
    message: issue.message,
  }));
}

function json(status: number, body: ErrorBody, headers?: Record<string, string>): Response {
  return Response.json(body, { status, headers });
}

const CONNECTION_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "57P01", "57P03", "08006", "08001"]);

function isDatabaseDown(err: unknown): boolean {
  const e = err as { code?: string; cause?: unknown; message?: string };
  if (e?.code && CONNECTION_CODES.has(e.code)) return true;
  if (err instanceof Prisma.PrismaClientInitializationError) return true;
  if (/Can't reach database server|Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect/i.test(e?.message ?? "")) {
    return true;
  }
  return e?.cause ? isDatabaseDown(e.cause) : false;
}

export function errorResponse(err: unknown, requestId?: string): Response {
  if (err instanceof AppError) {
    return json(
      err.httpStatus,
      { message: err.message, status: err.code, ...(err.errors ? { errors: err.errors } : {}) },
      err.headers,
    );
  }
  if (err instanceof ZodError) {
    const errors = zodFieldErrors(err);
    return json(422, {
      message: `Validation failed: ${errors.map((e) => `${e.path || "body"} ${e.message}`).join("; ")}`,
      status: "validation_failed",
      errors,
    });
  }
  if (err instanceof Prisma.PrismaClientKnownRequestError) {
    if (err.code === "P2002") return json(409, { message: "A record with the same unique values already exists.", status: "conflict" });
    if (err.code === "P2025") return json(404, { message: "The requested record was not found.", status: "not_found" });
    if (err.code === "P2003") return json(409, { message: "The record is still referenced by other records.", status: "conflict" });
  }
  if (isDatabaseDown(err)) {
    logger.warn({ requestId, err: (err as Error)?.message }, "database unavailable");
    return json(503, { message: "The database is unavailable; try again shortly.", status: "service_unavailable" }, {
      "Retry-After": "5",
    });
  }
  logger.error({ requestId, err }, "unhandled error");
  return json(500, {
    message: `An unexpected error occurred${requestId ? ` (request ${requestId})` : ""}; it has been logged.`,
    status: "internal_error",
  });
}

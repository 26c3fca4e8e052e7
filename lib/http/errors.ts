// The one mapper from thrown errors to the error response; the body is built by ./error-body.ts.
import { ZodError } from "zod";
import { AppError, fieldSummary, ValidationFailed, type FieldError } from "@/lib/errors";
import { Prisma } from "@/lib/generated/prisma/client";
import { logger } from "@/lib/logger";
import { issueMessage } from "@/lib/validation/messages";
import { errorJson } from "./error-body";

export type { ErrorBody, ErrorItem } from "./error-body";

/** Zod issues as field problems, with messages from the one message rule (lib/validation/messages.ts). */
export function zodFieldErrors(err: ZodError, where: FieldError["in"] = "body"): FieldError[] {
  return err.issues.map((issue) => ({
    path: issue.path.map(String).join("."),
    message: issueMessage(issue),
    ...(where === "body" ? {} : { in: where }),
  }));
}

// The route wrapper words its parameter problems with the same summary.
export { fieldSummary };

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
    return errorJson(err.httpStatus, err.code, err.message, { fields: err.errors, headers: err.headers });
  }
  if (err instanceof ZodError) {
    const failed = ValidationFailed.fromFields(zodFieldErrors(err));
    return errorJson(failed.httpStatus, failed.code, failed.message, { fields: failed.errors });
  }
  if (err instanceof Prisma.PrismaClientKnownRequestError) {
    if (err.code === "P2002") return errorJson(409, "conflict", "A record with the same unique values already exists.");
    if (err.code === "P2025") return errorJson(404, "not_found", "The requested record was not found.");
    if (err.code === "P2003") return errorJson(409, "conflict", "The record is still referenced by other records.");
  }
  if (isDatabaseDown(err)) {
    logger.warn({ requestId, err: (err as Error)?.message }, "database unavailable");
    return errorJson(503, "service_unavailable", "The database is unavailable; try again shortly.", {
      headers: { "Retry-After": "5" },
    });
  }
  logger.error({ requestId, err }, "unhandled error");
  return errorJson(
    500,
    "internal_error",
    `An unexpected error occurred${requestId ? ` (request ${requestId})` : ""}; it has been logged.`,
  );
}

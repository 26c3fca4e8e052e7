// The server side of lib/auth/sign-in-error.ts: what a failed login means for the console's form.
import "server-only";
import { isConnectionError } from "@/lib/db/health";
import { AppError, RateLimited, Unauthorized } from "@/lib/errors";
import { Prisma } from "@/lib/generated/prisma/client";
import { signInError, WRONG_CREDENTIALS } from "@/lib/auth/sign-in-error";

/**
 * null for wrong credentials (next-auth's own CredentialsSignin); otherwise the message for
 * authorize() to throw, so a throttled attempt, a database outage or a server error are never
 * reported as a wrong password, and whether the failure is worth a log line (not the caller's doing).
 */
export function signInFailure(err: unknown): { message: string; logged: boolean } | null {
  if (err instanceof Unauthorized && err.message === WRONG_CREDENTIALS) return null;
  if (err instanceof RateLimited) return { message: signInError("throttled", err.message), logged: false };
  if (err instanceof AppError) return { message: signInError("refused", err.message), logged: false };
  const down = err instanceof Prisma.PrismaClientInitializationError || isConnectionError(err);
  return { message: signInError(down ? "unavailable" : "error"), logged: true };
}

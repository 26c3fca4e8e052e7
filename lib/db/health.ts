import { pgPool } from "./client";

/** True when the application database answers a trivial query within two seconds. */
export async function databaseIsUp(): Promise<boolean> {
  try {
    await Promise.race([
      pgPool().query("SELECT 1"),
      new Promise((_, reject) => setTimeout(() => reject(new Error("timeout")), 2_000)),
    ]);
    return true;
  } catch {
    return false;
  }
}

const CONNECTION_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "57P01", "57P02", "57P03", "08000", "08001", "08003", "08006"]);
const CONNECTION_MESSAGES =
  /Can't reach database server|Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect|not queryable|database system is (shutting down|starting up)/i;

/** True when `err` says the database connection was lost or refused (not a bad query). */
export function isConnectionError(err: unknown, depth = 0): boolean {
  const e = err as { code?: unknown; cause?: unknown; message?: unknown } | null | undefined;
  if (!e || depth > 5) return false;
  if (typeof e.code === "string" && CONNECTION_CODES.has(e.code)) return true;
  if (typeof e.message === "string" && CONNECTION_MESSAGES.test(e.message)) return true;
  return e.cause ? isConnectionError(e.cause, depth + 1) : false;
}

/**
 * Keeps a long-lived process (web server, worker) alive through a database outage: libraries that
 * talk to the database in the background (the queue's polling and job bookkeeping) can reject a
 * promise nobody awaits when the connection drops, and Node would exit. Those are logged; any other
 * unhandled rejection is a bug and still ends the process.
 */
export function surviveDatabaseOutages(log: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void }): void {
  process.on("unhandledRejection", (reason) => {
    if (isConnectionError(reason)) {
      log.warn({ err: (reason as Error)?.message }, "database unavailable (background task); continuing");
      return;
    }
    log.error({ err: reason instanceof Error ? { message: reason.message, stack: reason.stack } : String(reason) }, "unhandled rejection");
    process.exit(1);
  });
}

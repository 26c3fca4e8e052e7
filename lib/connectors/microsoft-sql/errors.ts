// Microsoft SQL errors as sentences, and which of them a single row causes (so bisection can pin it).
import { ConnectorError, errorMessage } from "../shared/errors";
import { OutboundBlockedError } from "@/lib/net/policy";
import type { MssqlSettings } from "./settings";

interface DriverError {
  code?: string;
  number?: number;
  message?: string;
  originalError?: DriverError;
  cause?: unknown;
  info?: { number?: number; message?: string };
}

/** SQL Server's error number: mssql keeps it on the error, tedious on `info`. */
export function errorNumber(err: unknown): number | undefined {
  const e = err as DriverError | undefined;
  return e?.number ?? e?.info?.number ?? e?.originalError?.number ?? e?.originalError?.info?.number;
}

// Errors one row's values cause: duplicate key (2627, 2601), NULL into NOT NULL (515), foreign key or
// CHECK (547), truncation (8152, 2628), conversion and overflow (8114, 8115, 220, 232, 241, 242, 245,
// 248, 293, 295, 296, 8134), a MERGE source key twice (8672), an explicit value for an identity (544).
const ROW_ERRORS = new Set([2627, 2601, 515, 547, 8152, 2628, 8114, 8115, 220, 232, 241, 242, 245, 248, 293, 295, 296, 8134, 8672, 544]);

export function isRecordError(err: unknown): boolean {
  return ROW_ERRORS.has(errorNumber(err) ?? 0);
}

/** The OutboundBlockedError somewhere in the error's causes (tedious wraps the connector's error). */
function blocked(err: unknown): OutboundBlockedError | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 5; depth++) {
    if (e instanceof OutboundBlockedError) return e;
    const d = e as DriverError;
    e = d.cause ?? d.originalError;
  }
  return undefined;
}

function causeCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && /^E[A-Z]+$/.test(code) && !["ESOCKET", "ETIMEOUT", "ELOGIN", "EREQUEST", "ECANCEL"].includes(code)) return code;
    e = (e as DriverError).cause ?? (e as DriverError).originalError;
  }
  return undefined;
}

export function describeMssqlError(err: unknown, s?: MssqlSettings): string {
  if (err instanceof ConnectorError) return err.message;
  const refused = blocked(err);
  if (refused) return refused.message;
  const e = err as DriverError;
  const message = errorMessage(err);
  const number = errorNumber(err);
  if (!s) return message;
  const where = `${s.host}:${s.port}`;
  if (e.code === "ELOGIN" || number === 18456) return `Login failed for user "${s.user}". Check the username and password.`;
  if (number === 4060) return `Cannot open database "${s.database}": it does not exist or user "${s.user}" may not use it.`;
  if (e.code === "ECANCEL") return "The statement was canceled.";
  const cause = causeCode(err);
  if (cause === "ECONNREFUSED") return `Could not connect to ${where}: connection refused. Check the host and port, and that SQL Server accepts TCP connections.`;
  if (cause === "ENOTFOUND" || cause === "EAI_AGAIN") return `Could not resolve the host name "${s.host}". Check the host.`;
  if (cause === "EHOSTUNREACH" || cause === "ENETUNREACH") return `Could not reach ${where}. Check the host, port and firewall.`;
  if (e.code === "ETIMEOUT") {
    return /connect/i.test(message)
      ? `Timed out after ${Math.round(s.connectTimeoutMs / 1000)} s connecting to ${where}. Check the host, port and firewall.`
      : `The statement did not finish within the ${Math.round(s.queryTimeoutMs / 1000)} s query timeout.`;
  }
  return message;
}

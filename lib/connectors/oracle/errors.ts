// Oracle errors as sentences, and which of them a single row's values cause.
import { ConnectorError, errorMessage } from "../shared/errors";
import { OutboundBlockedError } from "@/lib/net/policy";
import type { OracleSettings } from "./settings";

interface DriverError {
  code?: string;
  errorNum?: number;
  message?: string;
  cause?: unknown;
}

// ORA- numbers one row's values cause: unique key (1), NULL into NOT NULL (1400, 1407), bad number
// (1722, 1438, 1426), too long (12899, 1401), check and foreign keys (2290, 2291, 2292), date text
// (1830, 1839, 1840, 1841, 1843, 1847, 1850, 1851, 1858, 1861, 1862, 1882, 1878).
const ROW_ERRORS = new Set([1, 1400, 1407, 1722, 1438, 1426, 12899, 1401, 2290, 2291, 2292, 1830, 1839, 1840, 1841, 1843, 1847, 1850, 1851, 1858, 1861, 1862, 1878, 1882]);

export function isRecordError(err: unknown): boolean {
  return ROW_ERRORS.has((err as DriverError)?.errorNum ?? 0);
}

/** The driver's code: `ORA-01017`, `NJS-503`… (from the error or its message). */
function codeOf(err: unknown): string {
  const e = err as DriverError;
  if (typeof e?.code === "string" && /^(ORA|NJS|DPI)-/.test(e.code)) return e.code;
  return /^((?:ORA|NJS|DPI)-\d+)/.exec(errorMessage(err))?.[1] ?? "";
}

export function describeOracleError(err: unknown, s?: OracleSettings): string {
  if (err instanceof ConnectorError) return err.message;
  if (err instanceof OutboundBlockedError) return err.message;
  const message = errorMessage(err);
  if (!s) return message;
  const where = `${s.host}:${s.port}`;
  const code = codeOf(err);
  const errno = (err as { code?: string }).code;
  if (errno === "ENOTFOUND" || errno === "EAI_AGAIN") return `Could not resolve the host name "${s.host}". Check the host.`;
  switch (code) {
    case "ORA-01017":
      return `Login failed for user "${s.user}": invalid username or password.`;
    case "ORA-28000":
      return `The account "${s.user}" is locked.`;
    case "ORA-12514":
    case "NJS-518":
      return `The listener at ${where} does not know the service "${s.service}". Check the service name (sid).`;
    case "ORA-12541":
    case "NJS-503":
    case "NJS-511":
      return `Could not connect to ${where}: connection refused. Check the host and port, and that the Oracle listener runs there.`;
    case "NJS-510":
      return `Timed out after ${Math.round(s.connectTimeoutMs / 1000)} s connecting to ${where}. Check the host, port and firewall.`;
    case "NJS-123":
    case "DPI-1067":
      return `The statement did not finish within the ${Math.round(s.queryTimeoutMs / 1000)} s query timeout.`;
    case "ORA-01013":
      return "The statement was canceled.";
    case "ORA-00942":
      return `A table or view the statement names does not exist, or user "${s.user}" may not read it. ${message}`;
    default:
      return message;
  }
}

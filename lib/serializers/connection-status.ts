// The answer of a connection check: the API contract's {result, details}, plus the reference protocol's
// ConnectionStatus message ({type: "connection_status", connection_status: {status, message}}),
// which the reference console reads to tell success from failure.
import type { CheckConnectionResult } from "@/lib/services/catalogue/connector-definitions";
import type { ConnectionStatus } from "./connection-status.schema";

export const serializeConnectionStatus = (check: CheckConnectionResult): ConnectionStatus => ({
  result: check.result,
  details: check.details,
  type: "connection_status" as const,
  connection_status: { status: check.result === "success" ? ("succeeded" as const) : ("failed" as const), message: check.details },
});

// The deadline of a connector call the API makes for a person waiting on it (check_connection,
// discover, a query preview): CONNECTOR_API_CALL_TIMEOUT_SECONDS. The connector gets a signal that
// fires then (so its requests and polling stop), and the API stops waiting at the same moment even
// if a connector ignores the signal, so a hostile or stuck endpoint cannot hold a request forever.
import "server-only";
import { env } from "@/lib/settings/env";
import { ConnectorError } from "@/lib/connectors/shared/errors";

export function apiCallTimeoutMs(): number {
  return env.CONNECTOR_API_CALL_TIMEOUT_SECONDS * 1000;
}

/** Runs `call` with a signal that aborts at the deadline; past it, throws ConnectorError("TIMEOUT"). */
export async function withApiDeadline<T>(what: string, call: (signal: AbortSignal) => Promise<T>, timeoutMs = apiCallTimeoutMs()): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const err = new ConnectorError(`${what} did not finish within ${timeoutMs / 1000} s (CONNECTOR_API_CALL_TIMEOUT_SECONDS), so it was stopped.`, "TIMEOUT");
      controller.abort(err);
      reject(err);
    }, timeoutMs);
  });
  const running = call(controller.signal);
  // A call left behind at the deadline may still fail later: nobody waits for it any more.
  running.catch(() => undefined);
  try {
    return await Promise.race([running, expired]);
  } finally {
    clearTimeout(timer);
  }
}

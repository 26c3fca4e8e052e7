// Authenticated GETs of the source against the REST API: the username-password token (cached by the
// REST kit's OAuth module) on the instance URL its answer names, a 401 answered by one fresh login,
// a 429/503 waited out by its Retry-After (bounded), 403 REQUEST_LIMIT_EXCEEDED (the daily API
// allowance) failing with a sentence. Answers are parsed with exact numbers (the value model).
import type { Row } from "../types";
import { secondsToMs } from "../shared/config";
import { ConnectorError } from "../shared/errors";
import { sendHttp } from "@/lib/net/http";
import { abortableSleep } from "../shared/sleep";
import { parseJsonExact } from "../shared/values";
import { forgetAccessToken, tokenSession } from "../rest-kit/oauth";
import { loginBaseUrl, passwordAuth, TITLE } from "./config";

const MAX_THROTTLED_RETRIES = 5;
const MAX_RETRY_WAIT_SECONDS = 60;
/** One page of up to 2,000 records, bounded. */
const MAX_BODY_BYTES = 32 * 1024 * 1024;

interface SalesforceError {
  errorCode?: string;
  message?: string;
}

function errorText(body: string): string {
  try {
    const parsed = JSON.parse(body) as SalesforceError[] | SalesforceError;
    const first = Array.isArray(parsed) ? parsed[0] : parsed;
    if (first?.errorCode || first?.message) return `${first.errorCode ?? "ERROR"}: ${(first.message ?? "").slice(0, 500)}`;
  } catch {
    // A gateway's page: the status says enough.
  }
  return "";
}

/** GET `path` (under the instance URL) and its parsed answer; throws ConnectorError with Salesforce's reason. */
export async function getJson(config: Row, path: string, signal?: AbortSignal, headers: Record<string, string> = {}): Promise<unknown> {
  const base = loginBaseUrl(config);
  const timeoutMs = secondsToMs(config, "timeout", 30);
  let renewed = false;
  for (let attempt = 0; ; attempt++) {
    const session = await tokenSession(base, config, passwordAuth, timeoutMs, TITLE);
    const exchange = await sendHttp({
      url: `${session.instanceUrl ?? base}${path}`,
      method: "GET",
      headers: { accept: "application/json", ...headers, authorization: `Bearer ${session.token}` },
      timeoutMs,
      signal,
      maxBodyBytes: MAX_BODY_BYTES,
      maxRedirects: 0,
    });
    if (signal?.aborted) throw new ConnectorError("The read was cancelled.", "CANCELLED");
    if (exchange.failure) throw new ConnectorError(`${TITLE}: ${exchange.error ?? "no answer"}`, exchange.failure === "blocked" ? "outbound_blocked" : undefined);
    const said = errorText(exchange.bodyText);
    if (exchange.status === 401 && !renewed) {
      // The session expired or was revoked: one fresh login, then the same request.
      renewed = true;
      forgetAccessToken(base, config, passwordAuth);
      continue;
    }
    if ((exchange.status === 429 || exchange.status === 503) && attempt < MAX_THROTTLED_RETRIES) {
      await abortableSleep(Math.min(exchange.retryAfterSeconds ?? 2 ** attempt, MAX_RETRY_WAIT_SECONDS) * 1000, signal, () => new ConnectorError("The read was cancelled.", "CANCELLED"));
      continue;
    }
    if (exchange.status >= 200 && exchange.status < 300) {
      try {
        return parseJsonExact(exchange.bodyText);
      } catch {
        throw new ConnectorError(`${TITLE} answered something that is not JSON (HTTP ${exchange.status}).`);
      }
    }
    if (exchange.status === 403 && said.startsWith("REQUEST_LIMIT_EXCEEDED")) throw new ConnectorError(`${TITLE} refused the request: the org's daily API allowance is used up (${said}).`, "RATE_LIMITED");
    throw new ConnectorError(`${TITLE} answered HTTP ${exchange.status}${said ? `: ${said}` : "."}`);
  }
}

// Running one SQL statement through watsonx.data's query API: POST {api}/queries/execute/{engine_id}
// with {sql_string, catalog_name, schema_name}, an IAM bearer token and the instance CRN as
// AuthInstanceId. The answer holds the whole result, `{"response": {"result": [{column: value}]}}`:
// the API does not page, so the body is bounded and callers cap the rows they ask for.
import { ConnectorError } from "../shared/errors";
import { isSuccess, sendHttp, type HttpExchange } from "@/lib/net/http";
import { capRetryAfter } from "@/lib/net/retry-after";
import { redact } from "../shared/secrets";
import { JsonNumber, parseJsonExact } from "../shared/values";
import type { Row } from "../types";
import type { WatsonxSettings } from "./config";
import { dropIamToken, iamToken } from "./iam";
import { abortableSleep } from "../shared/sleep";

/**
 * Largest answer taken into memory; a larger one fails with a sentence, before any parsing, instead
 * of being cut. Small on purpose: exact JSON parsing takes many times the text (a body of `{},` or
 * `1.50,` items is millions of objects), and the server is one the Member names.
 */
export const MAX_RESULT_BYTES = 16 * 1024 * 1024;
const ATTEMPTS = 4;
/** Longest wait on a 429's Retry-After inside one call; longer waits fail the call as retryable. */
const MAX_WAIT_SECONDS = 60;

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return abortableSleep(ms, signal, () => new ConnectorError("The read was cancelled."));
}

/** The reason in an error body: `{"errors": [{"code", "message"}]}`, `{"message"}` or `{"error": …}`; else the text. */
export function apiReason(bodyText: string): string {
  try {
    const body = JSON.parse(bodyText) as {
      errors?: { code?: string; message?: string }[];
      message?: string;
      error?: string | { message?: string };
      errorMessage?: string;
    };
    const first = body.errors?.[0];
    if (first?.message) return first.code ? `${first.message} (${first.code})` : first.message;
    if (typeof body.error === "object" && body.error?.message) return body.error.message;
    return body.message ?? body.errorMessage ?? (typeof body.error === "string" ? body.error : "");
  } catch {
    return bodyText.trim().slice(0, 300);
  }
}

function failure(s: WatsonxSettings, exchange: HttpExchange): ConnectorError {
  const reason = apiReason(exchange.bodyText);
  const tail = reason ? `: ${reason}` : "";
  switch (exchange.status) {
    case 400:
      return new ConnectorError(`watsonx.data could not run the query${tail}.`);
    case 401:
      return new ConnectorError(
        `watsonx.data refused the IAM token${tail}. Check that the API key belongs to a user or service ID with access to the instance.`,
      );
    case 403:
      return new ConnectorError(
        `watsonx.data denied access${tail}. Check auth_instance_id (the instance CRN) and the API key's access to engine "${s.engineId}".`,
      );
    case 404:
      return new ConnectorError(
        `watsonx.data found no engine "${s.engineId}" in region ${s.region}${tail}. Check engine_id and region.`,
      );
    case 429:
      return new ConnectorError(
        `watsonx.data kept answering 429 (too many requests)${tail}; try again later.`,
        "429",
      );
    default:
      return new ConnectorError(`watsonx.data answered HTTP ${exchange.status}${tail}.`);
  }
}

/** A row's top-level number that a JavaScript number would bend (a big BIGINT, `1.50`) keeps its text. */
function exactRow(value: unknown): Row {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new ConnectorError("watsonx.data answered a row that is not an object.");
  const row = value as Row;
  for (const [key, v] of Object.entries(row)) if (v instanceof JsonNumber) row[key] = v.text;
  return row;
}

function resultRows(exchange: HttpExchange): Row[] {
  if (Buffer.byteLength(exchange.bodyText) > MAX_RESULT_BYTES) {
    throw new ConnectorError(
      `The query's result is larger than ${MAX_RESULT_BYTES / 1024 / 1024} MiB, more than one answer of watsonx.data's query API may carry here; narrow the model or lower max_rows.`,
    );
  }
  let body: unknown;
  try {
    body = parseJsonExact(exchange.bodyText);
  } catch {
    throw new ConnectorError("watsonx.data answered something that is not JSON.");
  }
  const result = (body as { response?: { result?: unknown } } | null)?.response?.result;
  // A statement without rows answers no result at all.
  if (result === undefined || result === null) return [];
  if (!Array.isArray(result))
    throw new ConnectorError("watsonx.data answered a result that is not a list of rows.");
  return result.map(exactRow);
}

/** Runs `sql` and answers its rows, retrying 429s (after Retry-After), 5xx and lost connections. */
export async function executeSql(s: WatsonxSettings, sql: string, signal?: AbortSignal): Promise<Row[]> {
  const secrets = [s.apiKey];
  const url = `${s.apiUrl}/queries/execute/${encodeURIComponent(s.engineId)}`;
  let renewedToken = false;
  for (let attempt = 1; ; attempt++) {
    let token: string;
    try {
      token = await iamToken(s, signal);
    } catch (err) {
      throw new ConnectorError(redact((err as Error).message, secrets));
    }
    secrets.push(token);
    const exchange = await sendHttp({
      url,
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        authinstanceid: s.authInstanceId,
        accept: "application/json",
        "content-type": "application/json",
      },
      body: JSON.stringify({ sql_string: sql, catalog_name: s.database, schema_name: s.schema }),
      timeoutMs: s.timeoutMs,
      signal,
      secretHeaders: ["authorization"],
      maxBodyBytes: MAX_RESULT_BYTES + 1,
      maxRedirects: 0,
    });
    if (signal?.aborted) throw new ConnectorError("The read was cancelled.");
    if (isSuccess(exchange)) return resultRows(exchange);
    if (exchange.status === 401 && !renewedToken) {
      // A token revoked or expired early: one fresh token, then the refusal stands.
      renewedToken = true;
      dropIamToken(s);
      continue;
    }
    const transient =
      exchange.failure === "network" ||
      exchange.failure === "timeout" ||
      exchange.status === 429 ||
      exchange.status >= 500;
    if (!transient || attempt >= ATTEMPTS) {
      if (exchange.failure)
        throw new ConnectorError(
          redact(`watsonx.data did not answer: ${exchange.error ?? "no response"}`, secrets),
        );
      throw new ConnectorError(
        redact(failure(s, exchange).message, secrets),
        exchange.status === 429 ? "429" : undefined,
      );
    }
    const waitSeconds = exchange.retryAfterSeconds ?? 2 ** (attempt - 1);
    if (waitSeconds > MAX_WAIT_SECONDS)
      throw new ConnectorError(`watsonx.data asked to wait ${waitSeconds} s (429); try again later.`, "429");
    await sleep(capRetryAfter(waitSeconds) * 1000, signal);
  }
}

// Statements through Snowflake's SQL API v2: POST /api/v2/statements (asynchronous: the answer is a
// handle), GET /api/v2/statements/{handle} until the result is there (202 while running), the
// result's further partitions with ?partition=N, and POST …/cancel when the run is cancelled or the
// statement outlives query_timeout.
import { randomUUID } from "node:crypto";
import { ConnectorError } from "../shared/errors";
import type { HttpExchange } from "@/lib/net/http";
import { callApi, StatementApiError, untilFinished, type StatementApi } from "../shared/statement-api";
import { snowflakeAuthHeaders } from "./auth";
import type { SnowflakeConfig } from "./config";
import type { SnowflakeColumn } from "./values";

export type Cells = (string | null)[][];

export interface SnowflakeResult {
  handle: string;
  columns: SnowflakeColumn[];
  /** Rows of every partition, fetched one at a time (partition 0 came with the result). */
  partitions(): AsyncGenerator<Cells>;
}

interface ResultSetBody {
  code?: string;
  message?: string;
  statementHandle?: string;
  resultSetMetaData?: { numRows?: number; rowType?: SnowflakeColumn[]; partitionInfo?: unknown[] };
  data?: Cells;
}

/** Snowflake's error body ({code, message, sqlState}) as a sentence; 401/403 say what to fix. */
function describe(config: SnowflakeConfig, exchange: HttpExchange): string {
  let body: ResultSetBody & { sqlState?: string } = {};
  try {
    body = JSON.parse(exchange.bodyText) as typeof body;
  } catch {
    // Not JSON (a proxy's page): the status says enough.
  }
  const said = body.message ? `: ${body.message.trim()}${body.code ? ` (code ${body.code})` : ""}` : "";
  if (exchange.status === 401 || exchange.status === 403) {
    const fix =
      config.auth.kind === "pat"
        ? ` The SQL API takes no plain password: the password field must hold a programmatic access token (PAT) of user ${config.auth.username}, or use key-pair authentication (auth_type key_pair).`
        : ` Check that the public key of this private key is set on user ${config.auth.username} (ALTER USER … SET RSA_PUBLIC_KEY) and that the host names the account.`;
    return `Snowflake refused the credentials (HTTP ${exchange.status}${said}).${fix}`;
  }
  if (exchange.status === 408) return `The statement ran past its timeout in Snowflake${said}.`;
  if (exchange.status === 422) return `Snowflake could not run the statement${said}.`;
  if (exchange.status === 429) return `Snowflake kept answering "too many requests" (HTTP 429)${said}; try again later.`;
  return `Snowflake answered HTTP ${exchange.status}${said || "."}`;
}

function api(config: SnowflakeConfig): StatementApi {
  return {
    vendor: "Snowflake",
    baseUrl: config.baseUrl,
    headers: async () => ({ ...(await snowflakeAuthHeaders(config)), "x-snowflake-client": "datasync" }),
    requestTimeoutMs: config.requestTimeoutMs,
    describeError: (exchange) => describe(config, exchange),
  };
}

/** Partitions of one result read at most (Snowflake's are MBs each: far more than any sync reads). */
export const MAX_PARTITIONS = 100_000;

const statementPath = (handle: string) => `/api/v2/statements/${encodeURIComponent(handle)}`;

/**
 * Runs one statement and waits for its result (at most query_timeout, then it is cancelled).
 * `bindings` fill the statement's `?` markers in order, as text.
 */
export async function executeStatement(config: SnowflakeConfig, statement: string, bindings: string[] = [], signal?: AbortSignal): Promise<SnowflakeResult> {
  const client = api(config);
  const body = {
    statement,
    timeout: config.queryTimeoutSeconds,
    database: config.database,
    ...(config.schema ? { schema: config.schema } : {}),
    warehouse: config.warehouse,
    role: config.role,
    ...(bindings.length > 0 ? { bindings: Object.fromEntries(bindings.map((value, i) => [String(i + 1), { type: "TEXT", value }])) } : {}),
  };
  const submitted = await callApi(client, "POST", `/api/v2/statements?async=true&requestId=${randomUUID()}`, body, signal);
  let answer = submitted.json as ResultSetBody;
  const handle = answer.statementHandle;
  if (!handle) throw new ConnectorError("Snowflake accepted the statement without a statement handle.");
  const cancel = () => callApi(client, "POST", `${statementPath(handle)}/cancel`, {}).then(() => undefined);
  if (submitted.status !== 200 || !answer.resultSetMetaData) {
    answer = await untilFinished(
      async () => {
        const polled = await callApi(client, "GET", statementPath(handle), undefined, signal);
        return polled.status === 200 ? (polled.json as ResultSetBody) : undefined;
      },
      // A little past Snowflake's own timeout, which ends the statement first with its own sentence.
      { timeoutMs: (config.queryTimeoutSeconds + 5) * 1000, signal, cancel, vendor: "Snowflake" },
    );
  }
  const columns = answer.resultSetMetaData?.rowType ?? [];
  const count = Math.max(1, answer.resultSetMetaData?.partitionInfo?.length ?? 1);
  // Every partition holds rows: more partitions than rows is not a real result (a hostile server
  // could otherwise have us fetch millions of empty ones).
  const numRows = answer.resultSetMetaData?.numRows;
  if (count > MAX_PARTITIONS || (typeof numRows === "number" && count > Math.max(1, numRows))) {
    throw new ConnectorError(`Snowflake answered ${count} result partitions for ${numRows ?? "an unknown number of"} rows, which is not a result this connector reads (at most ${MAX_PARTITIONS} partitions).`);
  }
  let first: Cells | undefined = answer.data ?? [];
  answer = {};
  return {
    handle,
    columns,
    async *partitions() {
      for (let partition = 0; partition < count; partition++) {
        if (partition === 0 && first) {
          const rows = first;
          // Held only until it is handed over.
          first = undefined;
          yield rows;
          continue;
        }
        const page = await callApi(client, "GET", `${statementPath(handle)}?partition=${partition}`, undefined, signal).catch((err: unknown) => {
          if (signal?.aborted) void cancel().catch(() => undefined);
          throw err;
        });
        yield (page.json as ResultSetBody).data ?? [];
      }
    },
  };
}

export function isCredentialRefusal(err: unknown): boolean {
  return err instanceof StatementApiError && (err.status === 401 || err.status === 403);
}

// Statements through Databricks' SQL Statement Execution API 2.0: POST /api/2.0/sql/statements on
// the warehouse (INLINE disposition, JSON_ARRAY format, wait_timeout 0s: answered at once with the
// statement id), GET /api/2.0/sql/statements/{id} until SUCCEEDED (or FAILED/CANCELED/CLOSED), the
// result's chunks by next_chunk_internal_link, and POST …/cancel when the run is cancelled or the
// statement outlives query_timeout.
import { ConnectorError } from "../shared/errors";
import type { HttpExchange } from "@/lib/net/http";
import { callApi, untilFinished, type StatementApi } from "../shared/statement-api";
import type { DatabricksConfig } from "./config";
import type { DatabricksColumn } from "./values";

export type Cells = (string | null)[][];

interface ResultData {
  chunk_index?: number;
  data_array?: Cells;
  next_chunk_index?: number;
  next_chunk_internal_link?: string;
}

interface StatementBody {
  statement_id?: string;
  status?: { state?: string; error?: { error_code?: string; message?: string } };
  manifest?: { schema?: { columns?: DatabricksColumn[] }; total_row_count?: number; total_chunk_count?: number; truncated?: boolean };
  result?: ResultData;
}

export interface DatabricksResult {
  id: string;
  columns: DatabricksColumn[];
  chunks(): AsyncGenerator<Cells>;
}

function describe(exchange: HttpExchange): string {
  let body: { error_code?: string; message?: string } = {};
  try {
    body = JSON.parse(exchange.bodyText) as typeof body;
  } catch {
    // A gateway's text page.
  }
  const said = body.message ? `: ${body.message.trim()}${body.error_code ? ` (${body.error_code})` : ""}` : "";
  if (exchange.status === 401) return `Databricks refused the access token (HTTP 401${said}). Give a valid personal access token of a user or service principal of this workspace.`;
  if (exchange.status === 403) return `Databricks refused access (HTTP 403${said}): the token's user needs CAN USE on the SQL warehouse and read access to the tables.`;
  if (exchange.status === 429) return `Databricks kept answering "too many requests" (HTTP 429)${said}; try again later.`;
  return `Databricks answered HTTP ${exchange.status}${said || "."}`;
}

function api(config: DatabricksConfig): StatementApi {
  return {
    vendor: "Databricks",
    baseUrl: config.baseUrl,
    headers: async () => ({ authorization: `Bearer ${config.token}` }),
    requestTimeoutMs: config.requestTimeoutMs,
    describeError: describe,
  };
}

/** Chunks of one result read at most. */
export const MAX_CHUNKS = 100_000;

const statementPath = (id: string) => `/api/2.0/sql/statements/${encodeURIComponent(id)}`;

function finished(body: StatementBody): StatementBody | undefined {
  const state = body.status?.state;
  if (state === "SUCCEEDED") return body;
  if (state === "FAILED" || state === "CANCELED" || state === "CLOSED") {
    const error = body.status?.error;
    const said = error?.message ? `: ${error.message.trim()}${error.error_code ? ` (${error.error_code})` : ""}` : ".";
    throw new ConnectorError(state === "FAILED" ? `Databricks could not run the statement${said}` : `The statement was ${state.toLowerCase()} in Databricks${said}`, state);
  }
  return undefined;
}

/** Runs one statement; `parameters` fill its `:name` markers, as strings. */
export async function executeStatement(
  config: DatabricksConfig,
  statement: string,
  parameters: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<DatabricksResult> {
  const client = api(config);
  const submitted = await callApi(
    client,
    "POST",
    "/api/2.0/sql/statements",
    {
      statement,
      warehouse_id: config.warehouseId,
      catalog: config.catalog,
      schema: config.schema,
      disposition: "INLINE",
      format: "JSON_ARRAY",
      wait_timeout: "0s",
      on_wait_timeout: "CONTINUE",
      ...(Object.keys(parameters).length > 0 ? { parameters: Object.entries(parameters).map(([name, value]) => ({ name, value, type: "STRING" })) } : {}),
    },
    signal,
  );
  let body = submitted.json as StatementBody;
  const id = body.statement_id;
  if (!id) throw new ConnectorError("Databricks accepted the statement without a statement id.");
  const cancel = () => callApi(client, "POST", `${statementPath(id)}/cancel`, {}).then(() => undefined);
  body =
    finished(body) ??
    (await untilFinished(async () => finished((await callApi(client, "GET", statementPath(id), undefined, signal)).json as StatementBody), {
      timeoutMs: config.queryTimeoutSeconds * 1000,
      signal,
      cancel,
      vendor: "Databricks",
    }));
  const columns = body.manifest?.schema?.columns ?? [];
  const totalChunks = body.manifest?.total_chunk_count;
  let first: ResultData | undefined = body.result ?? {};
  body = {};
  return {
    id,
    columns,
    async *chunks() {
      let next: string | undefined;
      if (first) {
        const chunk: ResultData = first;
        first = undefined;
        next = chunk.next_chunk_internal_link;
        if (next && (chunk.data_array ?? []).length === 0) throw new ConnectorError("Databricks answered an empty result chunk that links to another; the read was stopped.");
        yield chunk.data_array ?? [];
      }
      // Bounded by the chunk count the manifest announced (and MAX_CHUNKS), and an empty chunk that
      // links to another is refused: a server can then not keep us fetching forever.
      const limit = Math.min(MAX_CHUNKS, Math.max(1, totalChunks ?? MAX_CHUNKS));
      for (let fetched = 1; next; fetched++) {
        if (!next.startsWith("/api/2.0/sql/statements/")) throw new ConnectorError(`Databricks answered an unexpected chunk link (${next.slice(0, 80)}).`);
        if (fetched >= limit) throw new ConnectorError(`Databricks linked more result chunks than the ${limit} its result announced; the read was stopped.`);
        const page = (await callApi(client, "GET", next, undefined, signal)).json as ResultData;
        next = page.next_chunk_internal_link;
        if (next && (page.data_array ?? []).length === 0) throw new ConnectorError("Databricks answered an empty result chunk that links to another; the read was stopped.");
        yield page.data_array ?? [];
      }
    },
  };
}

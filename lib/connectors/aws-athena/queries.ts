// One Athena query from start to last page: StartQueryExecution (database, catalog, workgroup,
// output location), GetQueryExecution polled with growing pauses until it ends, then
// GetQueryResults page by page (NextToken, at most 1,000 rows a page), one page in memory at a time.
// The first row of the first page is the header of a SELECT's result. Past query_timeout, on the
// run's cancel, or when the reader stops early, StopQueryExecution ends the query on Athena too.
import { randomUUID } from "node:crypto";
import {
  GetQueryExecutionCommand,
  GetQueryResultsCommand,
  StartQueryExecutionCommand,
  StopQueryExecutionCommand,
  type AthenaClient,
  type ColumnInfo,
  type Row as AthenaRow,
} from "@aws-sdk/client-athena";
import { ConnectorError } from "../shared/errors";
import type { AthenaSettings } from "./definition";
import { abortableSleep } from "../shared/sleep";

export interface ResultPage {
  columns: ColumnInfo[];
  rows: AthenaRow[];
}

const MAX_PAGE_ROWS = 1000;

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return abortableSleep(ms, signal, () => new ConnectorError("The read was cancelled."));
}

/** The column's type as Athena names it, with precision and scale for decimals. */
export function columnType(c: ColumnInfo): string {
  const type = c.Type ?? "varchar";
  return type === "decimal" && c.Precision ? `decimal(${c.Precision},${c.Scale ?? 0})` : type;
}

/** Runs `sql` and yields its result pages (header row removed); stops the query when left early. */
export async function* resultPages(client: AthenaClient, s: AthenaSettings, sql: string, options: { signal?: AbortSignal; pageSize?: number } = {}): AsyncGenerator<ResultPage> {
  const { signal } = options;
  const started = await client.send(
    new StartQueryExecutionCommand({
      QueryString: sql,
      ClientRequestToken: randomUUID(),
      QueryExecutionContext: { Catalog: s.catalog, ...(s.database ? { Database: s.database } : {}) },
      WorkGroup: s.workgroup,
      ResultConfiguration: { OutputLocation: s.outputLocation },
    }),
    { abortSignal: signal },
  );
  const id = started.QueryExecutionId;
  if (!id) throw new ConnectorError("Athena did not say which query it started.");
  let finished = false;
  const stop = () => client.send(new StopQueryExecutionCommand({ QueryExecutionId: id })).catch(() => undefined);
  try {
    const deadline = Date.now() + s.queryTimeoutMs;
    for (let pause = 100; ; pause = Math.min(pause * 2, 2000)) {
      const { QueryExecution } = await client.send(new GetQueryExecutionCommand({ QueryExecutionId: id }), { abortSignal: signal });
      const state = QueryExecution?.Status?.State;
      if (state === "SUCCEEDED") {
        // Nothing left to stop: a reader that leaves early only stops paging.
        finished = true;
        break;
      }
      if (state === "FAILED" || state === "CANCELLED") {
        finished = true;
        throw new ConnectorError(`Athena: ${QueryExecution?.Status?.StateChangeReason ?? (state === "CANCELLED" ? "the query was cancelled" : "the query failed")}`);
      }
      if (Date.now() >= deadline) throw new ConnectorError(`The query did not finish within ${s.queryTimeoutMs / 1000} s (query_timeout); Athena was asked to stop it.`, "timeout");
      await sleep(Math.min(pause, Math.max(0, deadline - Date.now())), signal);
    }
    let token: string | undefined;
    let first = true;
    let emptyPages = 0;
    do {
      const page = await client.send(
        new GetQueryResultsCommand({ QueryExecutionId: id, NextToken: token, MaxResults: Math.min(options.pageSize ?? MAX_PAGE_ROWS, MAX_PAGE_ROWS) }),
        { abortSignal: signal },
      );
      const columns = page.ResultSet?.ResultSetMetadata?.ColumnInfo ?? [];
      const rows = page.ResultSet?.Rows ?? [];
      // A SELECT's results start with a row of the column names.
      yield { columns, rows: first ? rows.slice(1) : rows };
      first = false;
      token = page.NextToken;
      // Athena's pages hold rows; empty ones that keep linking on are not a real result.
      emptyPages = rows.length === 0 ? emptyPages + 1 : 0;
      if (token && emptyPages > 3) throw new ConnectorError("Athena kept answering empty result pages that link to more; the read was stopped.");
    } while (token);
  } catch (err) {
    if (signal?.aborted) throw new ConnectorError("The read was cancelled.");
    throw err;
  } finally {
    if (!finished) await stop();
  }
}

// Streaming a query's rows through a server-side portal (pg-cursor: the extended protocol's Execute
// with a row limit, no DECLARE), inside a read-only transaction on a dedicated connection. Shared by
// the PostgreSQL and Redshift sources: both servers speak this part of the protocol.
import Cursor from "pg-cursor";
import type pg from "pg";
import type { ReadOptions, Row } from "../types";
import { throwIfAborted, withTimeout } from "../shared/batching";
import { asConnectorError, ConnectorError } from "../shared/errors";
import { beginRead, connect, describePgError, PG_READ_SESSION, pgSettings } from "./connection";

/** Resolves one cursor read with the rows and the result's columns (the promise form drops them). */
function readRows<T>(cursor: Cursor<T>, count: number): Promise<{ rows: T[]; fields: pg.FieldDef[] }> {
  return new Promise((resolve, reject) => {
    // A cursor already done answers with no result at all.
    cursor.read(count, (err, rows, result) =>
      err ? reject(err) : resolve({ rows, fields: (result as pg.QueryResult | undefined)?.fields ?? [] }),
    );
  });
}

/** Streams a query's rows in batches inside a read-only transaction on a dedicated connection. */
export async function* cursorBatches<T>(
  config: Row,
  options: ReadOptions,
  query:
    | { text: string; values: unknown[] }
    | ((client: pg.Client) => Promise<{ text: string; values: unknown[] }>),
  cursorConfig?: Cursor.CursorQueryConfig,
  /** Names the server in error sentences. */
  product?: string,
): AsyncGenerator<{ rows: T[]; fields: pg.FieldDef[] }> {
  const s = pgSettings(config);
  const batchSize = Math.max(1, Math.floor(options.batchSize));
  let client: pg.Client;
  try {
    client = await connect(s, { clientSideTimeout: false });
  } catch (err) {
    throw asConnectorError(err, (e) => describePgError(e, s, product));
  }
  let cursor: Cursor<T> | undefined;
  let ahead: Promise<{ rows: T[]; fields: pg.FieldDef[] }> | undefined;
  try {
    await beginRead(client, options.snapshot);
    // The server's statement timer would span the whole portal (every FETCH until the end), so
    // long reads are bounded per batch on our side instead. No product named: PostgreSQL itself.
    await client.query(`SET LOCAL statement_timeout = 0${product === undefined ? `; ${PG_READ_SESSION}` : ""}`);
    const { text, values } = typeof query === "function" ? await query(client) : query;
    const opened = client.query(new Cursor<T>(text, values, cursorConfig));
    cursor = opened;
    const readNext = () => {
      const next = withTimeout(readRows(opened, batchSize), s.queryTimeoutMs, () => {
        void client.end().catch(() => undefined);
        return new ConnectorError(
          `The query did not return the next ${batchSize} rows within ${s.queryTimeoutMs / 1000} s.`,
        );
      });
      // Awaited later; until then a failure must not count as an unhandled rejection.
      next.catch(() => undefined);
      return next;
    };
    let pending = readNext();
    ahead = pending;
    for (;;) {
      throwIfAborted(options.signal);
      const batch = await pending;
      ahead = undefined;
      if (batch.rows.length === 0) break;
      const last = batch.rows.length < batchSize;
      // Read ahead: the server computes the next batch while the consumer works on this one, so
      // the source's own work (e.g. hashing rows) is off the critical path. One batch more in memory.
      if (!last) ahead = pending = readNext();
      yield batch;
      if (last) break;
    }
    await opened.close();
    cursor = undefined;
    await client.query("COMMIT");
  } catch (err) {
    throw asConnectorError(err, (e) => describePgError(e, s, product));
  } finally {
    // Reached also when the consumer stops early (return()): release the portal and the connection.
    // close() waits for the server, which never answers on a connection we already ended. With a
    // read still running ahead there is nothing to wait for: ending the connection ends it all.
    if (ahead) cursor = undefined;
    if (cursor)
      await withTimeout(cursor.close(), 2000, () => new Error("close timed out")).catch(() => undefined);
    await client.end().catch(() => undefined);
  }
}

// A bounded count of a model read's rows on PostgreSQL (and Redshift, which speaks its protocol):
// the same read-only transaction, statement timeout and one-statement protocol as the read, the
// count stopping at limit + 1 rows (shared/bounded-count.ts). A count the timeout stops is unknown
// (null), not an error: a slow model costs the source a few seconds at most.
import type pg from "pg";
import type { BoundedCount, CountOptions, Row } from "../types";
import { boundedCount, boundedCountSql } from "../shared/bounded-count";
import { modelSelect, subquery } from "../shared/sql";
import { withClient, quoteIdent, described } from "./connection";
import { oneStatement } from "./one-statement";

/**
 * The read's FROM and WHERE: the model wrapped as a subquery, narrowed from the saved cursor, and the
 * cursor column qualified (null without one). The read (source.ts incrementalQuery) adds its order
 * and fingerprint to it; its count (below) counts it as it is, so both narrow alike.
 */
export function readFrom(options: Pick<CountOptions, "query" | "cursorField" | "cursorValue">): { from: string; values: unknown[]; cursor: string | null } {
  const from = `${subquery(modelSelect(options.query, "postgresql"))} AS subquery`;
  if (!options.cursorField) return { from, values: [], cursor: null };
  // Qualified, so it cannot be taken for the read's fingerprint column in ORDER BY.
  const cursor = `subquery.${quoteIdent(options.cursorField)}`;
  if (options.cursorValue === undefined || options.cursorValue === null) return { from, values: [], cursor };
  return { from: `${from} WHERE ${cursor} >= $1`, values: [options.cursorValue], cursor };
}

/** What a count counts: the read's rows, without their order (a count needs none). */
export function countedRows(options: CountOptions): { from: string; values: unknown[] } {
  const { from, values } = readFrom(options);
  return { from, values };
}

/** PostgreSQL's code for a statement stopped by statement_timeout (or a cancel). */
const QUERY_CANCELED = "57014";

async function countWith(client: pg.Client, queryTimeoutMs: number, options: CountOptions, begin: string): Promise<BoundedCount | null> {
  const { from, values } = countedRows(options);
  await client.query(begin);
  try {
    // SET LOCAL cannot take a parameter; the value is an integer we computed, at least 1 ms (0 would mean no timeout).
    const timeout = Math.max(1, Math.floor(Math.min(queryTimeoutMs, options.timeoutMs)));
    await client.query(`SET LOCAL statement_timeout = ${timeout}`);
    // The extended protocol runs one statement, whatever the model's text holds.
    const { rows } = await client.query<{ n: string }>(oneStatement(boundedCountSql(from, options.limit), values));
    return boundedCount(Number(rows[0]?.n), options.limit);
  } catch (err) {
    if ((err as { code?: string }).code === QUERY_CANCELED) return null;
    throw err;
  } finally {
    await client.query("ROLLBACK").catch(() => undefined);
  }
}

export async function countPostgresqlRows(config: Row, options: CountOptions): Promise<BoundedCount | null> {
  // Checked before connecting: a query that is not one SELECT never reaches the server.
  countedRows(options);
  return described(config, () => withClient(config, (client, s) => countWith(client, s.queryTimeoutMs, options, "BEGIN TRANSACTION READ ONLY")));
}

/** Redshift: `config` already in PostgreSQL's wire settings (redshift/config.ts wireConfig). */
export async function countRedshiftRows(wire: Row, options: CountOptions): Promise<BoundedCount | null> {
  countedRows(options);
  return withClient(wire, (client, s) => countWith(client, s.queryTimeoutMs, options, "BEGIN READ ONLY"));
}

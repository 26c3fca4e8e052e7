// Redshift's guess of a model read's row count: its EXPLAIN has no JSON format (PostgreSQL's
// estimate uses `EXPLAIN (FORMAT JSON)`), so the first plan line's `rows=N` is read, which both
// servers print (`XN Seq Scan on t  (cost=0.00..0.05 rows=5 width=4)` on Redshift).
import type { ReadOptions, Row } from "../types";
import { withClient } from "../postgresql/connection";
import { incrementalQuery } from "../postgresql/source";
import { wireConfig } from "./config";
import { oneStatement } from "../postgresql/one-statement";

/** Planning is quick; a plan that takes longer than this gives no estimate rather than a late one. */
const ESTIMATE_TIMEOUT_MS = 10_000;

/** `rows=N` of the plan's first line (its top node), or null. */
export function plannedRows(lines: string[]): number | null {
  const match = /\brows=(\d+)/.exec(lines[0] ?? "");
  return match ? Number(match[1]) : null;
}

export async function estimateRedshiftRows(config: Row, options: ReadOptions): Promise<number | null> {
  try {
    const query = incrementalQuery(options);
    return await withClient(wireConfig(config), async (client, s) => {
      await client.query("BEGIN READ ONLY");
      try {
        await client.query(
          `SET LOCAL statement_timeout = ${Math.floor(Math.min(s.queryTimeoutMs, ESTIMATE_TIMEOUT_MS))}`,
        );
        // The extended protocol runs one statement, whatever the text holds (the simple one, used
        // for a query without values, would run every statement in it).
        const { rows } = await client.query<{ "QUERY PLAN": string }>(oneStatement(`EXPLAIN ${query.text}`, query.values));
        return plannedRows(rows.map((r) => r["QUERY PLAN"]));
      } finally {
        await client.query("ROLLBACK").catch(() => undefined);
      }
    });
  } catch {
    // An estimate is optional: no answer is better than a failed run.
    return null;
  }
}

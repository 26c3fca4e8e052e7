// PostgreSQL's own guess of how many rows a model read returns: the planner's row estimate for the
// very query the read runs (EXPLAIN, which plans without executing), so a run's progress has
// something to measure against before it has ever run.
import type { ReadOptions, Row } from "../types";
import { described, withClient } from "./connection";
import { incrementalQuery } from "./source";
import { oneStatement } from "./one-statement";

/** Planning is quick; a source too slow to plan in this time gets no estimate rather than a late one. */
const ESTIMATE_TIMEOUT_MS = 10_000;

export async function estimateRows(config: Row, options: ReadOptions): Promise<number | null> {
  const query = incrementalQuery(options);
  return described(config, () =>
    withClient(config, async (client, s) => {
      await client.query("BEGIN TRANSACTION READ ONLY");
      try {
        // SET LOCAL cannot take a parameter; the value is an integer we computed.
        await client.query(`SET LOCAL statement_timeout = ${Math.floor(Math.min(s.queryTimeoutMs, ESTIMATE_TIMEOUT_MS))}`);
        // The extended protocol runs one statement, whatever the text holds (the simple one, used
        // for a query without values, would run every statement in it).
        const { rows } = await client.query<{ "QUERY PLAN": { Plan?: { "Plan Rows"?: number } }[] }>(
          oneStatement(`EXPLAIN (FORMAT JSON) ${query.text}`, query.values),
        );
        const planned = rows[0]?.["QUERY PLAN"]?.[0]?.Plan?.["Plan Rows"];
        return typeof planned === "number" && Number.isFinite(planned) ? Math.round(planned) : null;
      } finally {
        await client.query("ROLLBACK").catch(() => undefined);
      }
    }),
  );
}

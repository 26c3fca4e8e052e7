// How many of a run's failed records are still undelivered: the console offers "Retry failed records"
// only while some are. A failed record leaves its key's change-tracking state failed
// (run-store.ts:writeStates), and the next general run re-sends it; once a later run (a retry)
// delivered it, the state is success, and once the row left the model, the state is gone.
import "server-only";
import { sql } from "kysely";
import { db } from "@/lib/db/kysely";
import { keyOfLineSql, matchingCodes } from "@/lib/engine";
import { getSyncRun } from "./runs";

const FAILED_CODES = matchingCodes({ status: "failed" });

export interface UndeliveredRows {
  failed_rows: number;
  /** null for a test run: it tracks nothing, so no later run re-sends its rows. */
  undelivered_rows: number | null;
}

/**
 * Reads only the run's blocks with failures (the partial index sync_record_blocks_failed) and looks
 * each failed key's state up by its primary key: cost grows with the run's failures, not its size.
 */
export async function undeliveredRows(workspaceId: number, syncId: number, runId: number): Promise<UndeliveredRows> {
  const run = await getSyncRun(workspaceId, syncId, runId);
  if (run.syncRunType === "test") return { failed_rows: run.failedRows, undelivered_rows: null };
  if (run.failedRows === 0) return { failed_rows: 0, undelivered_rows: 0 };
  // The failed keys' states, rows and state blocks alike (ds_states_of: lib/engine/state-blocks.ts).
  const { rows } = await sql<{ n: string }>`
    WITH f AS MATERIALIZED (
      SELECT ${keyOfLineSql(sql.ref("r.key"))} AS key
        FROM sync_record_blocks b
       CROSS JOIN LATERAL unnest(string_to_array(b.codes, NULL), string_to_array(b.keys, E'\n')) AS r(code, key)
       WHERE b.sync_run_id = ${run.id} AND b.failed > 0 AND strpos(${FAILED_CODES}, r.code) > 0
    )
    SELECT count(*)::text AS n FROM f JOIN ds_states_of(${syncId}::int, ARRAY(SELECT f.key FROM f)) s ON s.primary_key = f.key
     WHERE s.last_status = 'failed'`.execute(db());
  const row = rows[0];
  return { failed_rows: run.failedRows, undelivered_rows: Number(row?.n ?? 0) };
}

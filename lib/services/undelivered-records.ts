// How many of a run's failed records are still undelivered: the console offers "Retry failed records"
// only while some are. A failed record leaves its key's change-tracking state failed
// (run-store.ts:writeStates), and the next general run re-sends it; once a later run (a retry)
// delivered it, the state is success, and once the row left the model, the state is gone.
import "server-only";
import { queryRows } from "@/lib/db/client";
import { matchingCodes } from "@/lib/engine";
import { Prisma } from "@/lib/generated/prisma/client";
import { getSyncRun } from "./sync-runs";

const FAILED_CODES = matchingCodes({ status: "failed" });

export interface UndeliveredRows {
  failed_rows: number;
  /** null for a test run: it tracks nothing, so no later run re-sends its rows. */
  undelivered_rows: number | null;
}

/**
 * Reads only the run's blocks with failures (the partial index sync_record_blocks_failed) and looks
 * each failed key up in sync_states by its primary key: cost grows with the run's failures, not its size.
 */
export async function undeliveredRows(workspaceId: number, syncId: number, runId: number): Promise<UndeliveredRows> {
  const run = await getSyncRun(workspaceId, syncId, runId);
  if (run.syncRunType === "test") return { failed_rows: run.failedRows, undelivered_rows: null };
  if (run.failedRows === 0) return { failed_rows: 0, undelivered_rows: 0 };
  // A key line starting with a quote is the key as JSON (it held a quote or a line break: format.ts).
  const [row] = await queryRows<{ n: number }>(Prisma.sql`
    SELECT count(*)::int AS n
      FROM sync_record_blocks b
     CROSS JOIN LATERAL unnest(string_to_array(b.codes, NULL), string_to_array(b.keys, E'\n')) AS r(code, key)
      JOIN sync_states s
        ON s.sync_id = b.sync_id
       AND s.primary_key = CASE WHEN left(r.key, 1) = '"' THEN r.key::json #>> '{}' ELSE r.key END
     WHERE b.sync_run_id = ${run.id} AND b.failed > 0
       AND strpos(${FAILED_CODES}, r.code) > 0
       AND s.last_status = 'failed'`);
  return { failed_rows: run.failedRows, undelivered_rows: row?.n ?? 0 };
}

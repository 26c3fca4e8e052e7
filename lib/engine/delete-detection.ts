// Delete detection, after a complete full read: rows tracked in sync_states but absent from the read
// become destination_delete records; rows never delivered only lose their state.
import "server-only";
import { canonicalJson } from "./diff";
import type { Item } from "./batch";
import type { KeySet } from "./key-set";
import type { BatchRecorder } from "./record-batch";
import type { RunAttempt } from "./run-attempt";
import { forgetStates, zeroCounters } from "./run-store";
import { sendItems } from "./send-batch";
import { engineSettings } from "./settings";

export async function detectDeletes(attempt: RunAttempt, seen: KeySet, recorder: BatchRecorder): Promise<void> {
  const { pool, ctx } = attempt;
  const { sync, run, model } = ctx;
  const pageSize = engineSettings.batchSize;
  let after = "";
  for (;;) {
    if (attempt.halted) return;
    const { rows } = await pool.query<{ primary_key: string; fingerprint: string; last_run_id: number }>(
      `SELECT primary_key, fingerprint, last_run_id FROM sync_states
       WHERE sync_id = $1 AND primary_key > $2 ORDER BY primary_key LIMIT $3`,
      [sync.id, after, pageSize],
    );
    if (rows.length === 0) return;
    after = rows[rows.length - 1].primary_key;
    const gone = rows.filter((r) => !seen.has(r.primary_key) && r.last_run_id !== run.id);
    // Never delivered: nothing to delete in the destination, only the state to forget.
    const undelivered = gone.filter((r) => r.fingerprint === "").map((r) => r.primary_key);
    if (undelivered.length > 0) await forgetStates(pool, sync.id, undelivered);
    const items: Item[] = gone
      .filter((r) => r.fingerprint !== "")
      .map((r) => ({
        key: r.primary_key,
        json: canonicalJson({ [model.primaryKey]: r.primary_key }),
        fingerprint: r.fingerprint,
        row: {},
        action: "destination_delete" as const,
      }));
    if (items.length > 0) await recorder.record({ seq: attempt.nextSeq++, outcomes: await sendItems(attempt, items), delta: zeroCounters() });
  }
}

// Delete detection, after a complete full read: rows tracked (sync_states, state blocks) but absent from the read
// become destination_delete records; rows never delivered (or skipped by the write mode) only lose
// their state. The plan (plan/planner.ts) counts the same pages without acting on them. A guarded
// run checks the deletes it found against its limits (or its approval) once more before making any:
// the model may have changed between its plan and its read.
import "server-only";
import type { Pool } from "pg";
import { effectiveGuard, guardInForce } from "@/lib/sync-rules/guard";
import { deleteStoppers, isApprovedPlan, type StoredPlan } from "./plan/approval";
import { ChangeKeyCollector } from "./plan/change-keys";
import { canonicalJson } from "./diff";
import type { Item } from "./batch";
import type { KeySet } from "./key-set";
import type { BatchRecorder } from "./record-batch";
import type { RunAttempt } from "./run-attempt";
import { forgetStates, zeroCounters } from "./run-store";
import { sendItems } from "./send-batch";
import { engineSettings } from "./settings";
import { countStates, statePages } from "./state-blocks";

/** One page of tracked rows the read did not see. */
export interface GonePage {
  /** Delivered before: to delete in the destination. */
  delivered: { key: string; fingerprint: string }[];
  /** Never delivered (their insert failed): only their state is forgotten. */
  undelivered: string[];
}

/**
 * Pages of the sync's tracked rows absent from `seen`, in key order (states this run already wrote
 * are its own: not gone). Read-only; stops when `halted()` says so.
 */
export async function* goneStates(pool: Pool, syncId: number, runId: number, seen: KeySet, halted: () => boolean): AsyncGenerator<GonePage> {
  // Rows and block entries alike (state-blocks.ts); this run's own blocks are left out there.
  for await (const rows of statePages(pool, syncId, runId, engineSettings.batchSize)) {
    if (halted()) return;
    const gone = rows.filter((r) => !seen.has(r.primary_key) && r.last_run_id !== runId);
    // Never delivered (or skipped by the write mode): nothing to delete in the destination, only the state to forget.
    const delivered = (r: { fingerprint: string; last_status: string }) => r.fingerprint !== "" && r.last_status !== "skipped";
    yield {
      delivered: gone.filter(delivered).map((r) => ({ key: r.primary_key, fingerprint: r.fingerprint })),
      undelivered: gone.filter((r) => !delivered(r)).map((r) => r.primary_key),
    };
  }
}

/** The destination_delete Item of a tracked row (its payload is built from the key alone). */
export function deleteItem(primaryKeyColumn: string, gone: { key: string; fingerprint: string }): Item {
  return {
    key: gone.key,
    json: canonicalJson({ [primaryKeyColumn]: gone.key }),
    fingerprint: gone.fingerprint,
    row: {},
    action: "destination_delete",
  };
}

export async function detectDeletes(attempt: RunAttempt, seen: KeySet, recorder: BatchRecorder): Promise<void> {
  const { pool, ctx } = attempt;
  const { sync, model } = ctx;
  if (await deletesRefused(attempt, seen)) return;
  for await (const page of goneStates(pool, sync.id, attempt.ownStatesRunId, seen, () => attempt.halted)) {
    if (page.undelivered.length > 0) await forgetStates(pool, sync.id, page.undelivered);
    const items = page.delivered.map((g) => deleteItem(model.primaryKey, g));
    if (items.length > 0) await recorder.record({ seq: attempt.nextSeq++, outcomes: await sendItems(attempt, items), delta: zeroCounters() });
  }
}

/**
 * The guard's last word, just before the first delete: the deletes this read found (a first,
 * read-only pass over the same pages) against the sync's limits, or against the approved deletes
 * when the run was approved. Over them, the run deletes nothing and fails saying why (what it already
 * wrote stays; the next run plans again, and its guard holds it if the deletes still exceed).
 */
async function deletesRefused(attempt: RunAttempt, seen: KeySet): Promise<boolean> {
  const { pool, ctx } = attempt;
  const { sync, run } = ctx;
  if (!guardInForce(sync)) return false;
  const stored = (run.plan ?? null) as StoredPlan | null;
  const approval = stored !== null && isApprovedPlan(stored.approval) ? stored.approval : null;
  const keys = new ChangeKeyCollector();
  for await (const page of goneStates(pool, sync.id, attempt.ownStatesRunId, seen, () => attempt.halted)) for (const g of page.delivered) keys.add(g.key);
  if (attempt.halted) return true;
  // What the percentages are of: the plan's count, taken before this run wrote any state.
  const tracked = typeof stored?.tracked === "number" ? stored.tracked : await trackedBefore(pool, sync.id, run.id);
  const stoppers = deleteStoppers(effectiveGuard(sync), tracked, keys.result(), approval);
  if (stoppers.length === 0) return false;
  const what = approval ? `the source changed after approval: ${stoppers.join("; ")}` : `the model changed after the run planned: it ${stoppers.join("; ")}`;
  attempt.fail(new Error(`Nothing was deleted: ${what}. Run the sync again: it plans again, and its limits hold it for approval if it still would.`));
  return true;
}

/** Rows the sync tracked before this run (a run without a stored plan): states this run did not write. */
async function trackedBefore(pool: Pool, syncId: number, runId: number): Promise<number> {
  return countStates(pool, syncId, runId);
}

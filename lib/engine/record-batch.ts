// Record: one transaction per batch with its records (blocks, lib/records), the new change-tracking states
// (accepted rows only) and the run's counters. Later batches may commit first; a crash in between
// only means re-reading rows already recorded. After the commit: the cursor, memory, and the run's
// first in_progress.
import "server-only";
import type { PoolClient } from "pg";
import { writeRecordBlocks } from "@/lib/engine/records/write";
import { outcomeCount, type Item, type Outcomes } from "./batch";
import type { CursorTracker } from "./cursor-tracker";
import { relieveMemoryPressure } from "./memory";
import { StopSignal, type RunAttempt } from "./run-attempt";
import { addBatchCounters, rebaselineStates, setRunStatus, writeStates, type RunCounters, type RunTotals } from "./run-store";
import { publishRunProgress } from "./run-events";
import { withTransaction } from "./transaction";

export interface RecorderOptions {
  /**
   * How the batch's states are written: "none" (test runs touch no change tracking), "copy" (the
   * sync tracked nothing when the attempt began, so no state can conflict), "upsert".
   */
  states: "none" | "copy" | "upsert";
  /** Advanced after each complete batch (incremental syncs). */
  cursor?: CursorTracker;
}

export interface BatchToRecord {
  seq: number;
  outcomes: Outcomes;
  /** The batch's read counters; the record counters are added from the outcomes. */
  delta: RunCounters;
  /** The batch's last cursor value, saved once every batch before it is recorded. */
  cursorValue?: string;
  /** Unchanged rows whose state takes the source's fingerprint (batch-diff.ts). */
  rebaselined?: Item[];
  /** False when a stop left rows of the batch unsent: then the cursor must not pass it. */
  complete?: boolean;
  /** Earlier batches whose rows this one carries (send-groups.ts): the cursor passes each complete one with it. */
  carried?: { seq: number; cursorValue?: string; complete?: boolean }[];
  /** Written with the batch, in its transaction (a live sync's source position: live/live-store.ts). */
  commit?: (client: Pick<PoolClient, "query">) => Promise<void>;
}

export class BatchRecorder {
  private inProgress = false;

  constructor(
    private readonly attempt: RunAttempt,
    private readonly options: RecorderOptions,
  ) {}

  async record(batch: BatchToRecord): Promise<void> {
    const { attempt } = this;
    const { outcomes, delta } = batch;
    const started = performance.now();
    const { run, sync } = attempt.ctx;
    if (batch.rebaselined?.length && this.options.states !== "none") {
      await rebaselineStates(
        sync.id,
        batch.rebaselined.map((i) => i.key),
        batch.rebaselined.map((i) => i.fingerprint),
      );
    }
    const count = outcomeCount(outcomes);
    if (!Array.isArray(outcomes)) {
      delta.totalRows += count;
      delta.successfulRows += count;
    } else {
      for (const o of outcomes) {
        delta.totalRows++;
        // Skipped as already delivered (ok) counts as delivered; skipped by the write mode as skipped.
        if (o.ok) delta.successfulRows++;
        else if (o.skipped) delta.skippedRows++;
        else delta.failedRows++;
      }
    }
    let totals: RunTotals;
    try {
      // A batch with nothing sent (all unchanged) only moves the counters: one statement, no transaction.
      totals =
        count === 0
          ? await addBatchCounters(attempt.pool, run.id, delta, attempt.roundedTimings(performance.now() - started)).then(async (t) => {
              // Nothing recorded: the counters and this need not be one transaction.
              await batch.commit?.(attempt.pool);
              return t;
            })
          : await withTransaction(attempt.pool, async (client) => {
              // Holds off a concurrent delete of the run (its workspace's deletion) until this batch has
              // committed, so the delete triggers find its records and states: bookkeeping has no foreign
              // keys. A run already deleted writes nothing and stops.
              const held = await client.query("SELECT 1 FROM sync_runs WHERE id = $1 FOR KEY SHARE", [run.id]);
              if (held.rowCount === 0) {
                attempt.stop("canceled");
                throw new StopSignal("canceled");
              }
              await writeRecordBlocks(client, sync.id, run.id, outcomes);
              if (this.options.states !== "none") {
                // An insert-mode skip means the key is in the destination; an update-mode skip that it is not.
                const skipsPresent = sync.writeMode === "insert";
                await writeStates(client, sync.id, run.id, outcomes, this.options.states === "copy", skipsPresent);
              }
              await batch.commit?.(client);
              const moved = await addBatchCounters(client, run.id, delta, attempt.roundedTimings(performance.now() - started));
              // With its counters (nothing when nobody listens; a batch of only unchanged rows sends none).
              await publishRunProgress(client, run.id);
              return moved;
            });
    } finally {
      attempt.timings.record += performance.now() - started;
    }
    attempt.noteTotals(totals);
    attempt.delivered += delta.successfulRows;
    for (const earlier of batch.carried ?? []) {
      if (earlier.complete !== false) this.options.cursor?.recordedBatch(earlier.seq, earlier.cursorValue);
    }
    if (batch.complete !== false) this.options.cursor?.recordedBatch(batch.seq, batch.cursorValue);
    relieveMemoryPressure();
    if (!this.inProgress) {
      this.inProgress = true;
      await setRunStatus(attempt.pool, run.id, "in_progress");
    }
  }
}

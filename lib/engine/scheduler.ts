// The scheduler loop: every tick, the one process holding the scheduler lock enqueues due syncs and
// moves their next_run_at forward; once an hour it prunes sync records past the retention period.
import "server-only";
import type { InferResult } from "kysely";
import { pgPool } from "@/lib/db/client";
import { db, viaClient } from "@/lib/db/kysely";
import { env } from "@/lib/settings/env";
import { logger } from "@/lib/logger";
import { every, type Periodic } from "./every";
import { SCHEDULER_LOCK, tryLockForTransaction } from "./locks";
import { enqueueRun } from "./queue";
import { createGeneralRun } from "./run-store";
import { advanceNextRunAt, computeNextRunAt } from "@/lib/sync-rules/schedule";
import { engineSettings } from "./settings";
import { withTransaction } from "./transaction";
import { sweepLostHooks } from "./sequences/advance";

const PRUNE_EVERY_MS = 3_600_000;

/** Scheduled syncs (not deleted, disabled or manual), locked for this pass; skipped when another pass holds them. */
const scheduledSyncs = () =>
  db()
    .selectFrom("syncs")
    .select(["id", "workspace_id", "status", "schedule_type", "sync_interval", "sync_interval_unit", "cron_expression", "timezone", "next_run_at"])
    .where("deleted_at", "is", null)
    .where("status", "<>", "disabled")
    .where("schedule_type", "<>", "manual")
    .forUpdate()
    .skipLocked()
    .limit(500);
type SyncScheduleRow = InferResult<ReturnType<typeof scheduledSyncs>>[number];
const setNextRunAt = (id: number, next: Date | null) => db().updateTable("syncs").set({ next_run_at: next }).where("id", "=", id);

function toSpec(row: SyncScheduleRow) {
  return {
    status: row.status,
    scheduleType: row.schedule_type,
    syncInterval: row.sync_interval,
    syncIntervalUnit: row.sync_interval_unit,
    cronExpression: row.cron_expression,
    timezone: row.timezone,
    nextRunAt: row.next_run_at,
  };
}

/** Retention of sync records in days (env SYNC_RECORD_RETENTION_DAYS, default 30). */
export function recordRetentionDays(): number {
  return engineSettings.recordRetentionDays;
}

/**
 * Deletes records of runs finished before the retention window, in chunks of 1000 blocks (up to a
 * million records, or a thousand migrated one-record blocks); returns how many records.
 */
export async function pruneSyncRecords(options: { now?: Date; retentionDays?: number } = {}): Promise<number> {
  const cutoff = new Date((options.now ?? new Date()).getTime() - (options.retentionDays ?? recordRetentionDays()) * 86_400_000);
  let total = 0;
  for (;;) {
    const rows = await db()
      .deleteFrom("sync_record_blocks")
      .where(({ eb, refTuple, selectFrom }) =>
        eb(
          refTuple("sync_run_id", "first_id"),
          "in",
          selectFrom("sync_record_blocks as b")
            .innerJoin("sync_runs as r", "r.id", "b.sync_run_id")
            .select(["b.sync_run_id", "b.first_id"])
            .where("r.finished_at", "<", cutoff)
            .limit(1000)
            .$asTuple("sync_run_id", "first_id"),
        ),
      )
      .returning("size")
      .execute();
    if (rows.length === 0) return total;
    for (const r of rows) total += r.size;
  }
}

/**
 * Deletes sequence runs (with their steps) started before the record retention window: by then their
 * runs' records are gone too, and a sequence that has not moved for that long never will.
 */
export async function pruneSequenceRuns(options: { now?: Date; retentionDays?: number } = {}): Promise<number> {
  const cutoff = new Date((options.now ?? new Date()).getTime() - (options.retentionDays ?? recordRetentionDays()) * 86_400_000);
  const { numDeletedRows } = await db().deleteFrom("sequence_runs").where("created_at", "<", cutoff).executeTakeFirst();
  return Number(numDeletedRows);
}

/**
 * One scheduler pass. Returns the ids of runs it queued, or null when another process is the leader.
 * Due syncs with an active run are skipped for this slot (their next_run_at still moves on).
 */
export async function schedulerTick(now: Date = new Date()): Promise<number[] | null> {
  const created = await withTransaction(pgPool(), async (client) => {
    if (!(await tryLockForTransaction(client, SCHEDULER_LOCK))) return null;
    // Syncs created or enabled without a next_run_at get one.
    const unscheduled = await viaClient(client, scheduledSyncs().where("next_run_at", "is", null));
    for (const row of unscheduled) {
      const next = computeNextRunAt(toSpec(row), now);
      if (next) await viaClient(client, setNextRunAt(row.id, next));
    }
    const due = await viaClient(client, scheduledSyncs().where("next_run_at", "<=", now).orderBy("next_run_at"));
    const runIds: number[] = [];
    for (const row of due) {
      await viaClient(client, setNextRunAt(row.id, advanceNextRunAt(toSpec(row), now)));
      const runId = await createGeneralRun(client, { id: row.id, workspaceId: row.workspace_id });
      if (runId !== null) runIds.push(runId);
    }
    return runIds;
  });
  // A send that fails here is retried by the reaper, which re-sends queued runs without a job.
  for (const runId of created ?? []) await enqueueRun(runId);
  return created;
}

export interface SchedulerHandle {
  stop(): Promise<void>;
}

/**
 * Starts the loop. `sweeps` are other layers' periodic checks (the alert sweep), run by the leader on
 * the ALERT_SWEEP_SECONDS cadence; one failing is logged and the others still run.
 */
export function startScheduler(options: { sweeps?: ReadonlyArray<() => Promise<void>> } = {}): SchedulerHandle {
  let lastPrune = 0;
  let lastSweep = 0;
  const loop: Periodic = every(
    engineSettings.schedulerIntervalMs,
    async () => {
      const queued = await schedulerTick();
      if (queued === null) return;
      if (queued.length > 0) logger.info({ runs: queued }, "scheduled runs queued");
      // Other layers' sweeps: the alert rules time alone can break (docs/alerts.md) are checked on the alert queue.
      if (Date.now() - lastSweep >= env.ALERT_SWEEP_SECONDS * 1000) {
        lastSweep = Date.now();
        for (const sweep of options.sweeps ?? []) await sweep().catch((err: unknown) => logger.warn({ err: (err as Error).message }, "a scheduled sweep failed"));
        // On the same cadence: sequence steps whose hook a dying worker never ran.
        const swept = await sweepLostHooks();
        if (swept.length > 0) logger.info({ runs: swept }, "ran the lost after-success hooks of sequence runs");
      }
      if (Date.now() - lastPrune >= PRUNE_EVERY_MS) {
        lastPrune = Date.now();
        const pruned = await pruneSyncRecords();
        if (pruned > 0) logger.info({ pruned }, "pruned old sync records");
        const sequences = await pruneSequenceRuns();
        if (sequences > 0) logger.info({ sequences }, "pruned old sequence runs");
      }
    },
    (err) => logger.warn({ err: (err as Error).message }, "scheduler tick failed"),
  );
  return loop;
}

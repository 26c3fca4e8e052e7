// The scheduler loop: every tick, the one process holding the scheduler lock enqueues due syncs and
// moves their next_run_at forward; once an hour it prunes sync records past the retention period.
import "server-only";
import { pgPool } from "@/lib/db/client";
import type { ScheduleType, SyncIntervalUnit, SyncStatus } from "@/lib/generated/prisma/enums";
import { env } from "@/lib/config/env";
import { logger } from "@/lib/logger";
import { queueAlertSweep } from "@/lib/services/alerts/queue";
import { every, type Periodic } from "./every";
import { SCHEDULER_LOCK, tryLockForTransaction } from "./locks";
import { enqueueRun } from "./queue";
import { createGeneralRun } from "./run-store";
import { advanceNextRunAt, computeNextRunAt } from "@/lib/sync-config/schedule";
import { engineSettings } from "./settings";
import { withTransaction } from "./transaction";
import { sweepLostHooks } from "./sequences/advance";

const PRUNE_EVERY_MS = 3_600_000;

interface SyncScheduleRow {
  id: number;
  workspace_id: number;
  status: SyncStatus;
  schedule_type: ScheduleType;
  sync_interval: number | null;
  sync_interval_unit: SyncIntervalUnit | null;
  cron_expression: string | null;
  timezone: string;
  next_run_at: Date | null;
}

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
    const { rows } = await pgPool().query<{ size: number }>(
      `DELETE FROM sync_record_blocks WHERE (sync_run_id, first_id) IN (
         SELECT b.sync_run_id, b.first_id FROM sync_record_blocks b JOIN sync_runs r ON r.id = b.sync_run_id
         WHERE r.finished_at < $1 LIMIT 1000)
       RETURNING size`,
      [cutoff],
    );
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
  const { rowCount } = await pgPool().query("DELETE FROM sequence_runs WHERE created_at < $1", [cutoff]);
  return rowCount ?? 0;
}

/**
 * One scheduler pass. Returns the ids of runs it queued, or null when another process is the leader.
 * Due syncs with an active run are skipped for this slot (their next_run_at still moves on).
 */
export async function schedulerTick(now: Date = new Date()): Promise<number[] | null> {
  const created = await withTransaction(pgPool(), async (client) => {
    if (!(await tryLockForTransaction(client, SCHEDULER_LOCK))) return null;
    const columns = "id, workspace_id, status, schedule_type, sync_interval, sync_interval_unit, cron_expression, timezone, next_run_at";
    // Syncs created or enabled without a next_run_at get one.
    const { rows: unscheduled } = await client.query<SyncScheduleRow>(
      `SELECT ${columns} FROM syncs WHERE deleted_at IS NULL AND status <> 'disabled' AND schedule_type <> 'manual' AND next_run_at IS NULL
       FOR UPDATE SKIP LOCKED LIMIT 500`,
    );
    for (const row of unscheduled) {
      const next = computeNextRunAt(toSpec(row), now);
      if (next) await client.query("UPDATE syncs SET next_run_at = $2 WHERE id = $1", [row.id, next]);
    }
    const { rows: due } = await client.query<SyncScheduleRow>(
      `SELECT ${columns} FROM syncs WHERE deleted_at IS NULL AND status <> 'disabled' AND schedule_type <> 'manual' AND next_run_at <= $1
       ORDER BY next_run_at FOR UPDATE SKIP LOCKED LIMIT 500`,
      [now],
    );
    const runIds: number[] = [];
    for (const row of due) {
      await client.query("UPDATE syncs SET next_run_at = $2 WHERE id = $1", [row.id, advanceNextRunAt(toSpec(row), now)]);
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

export function startScheduler(): SchedulerHandle {
  let lastPrune = 0;
  let lastAlertSweep = 0;
  const loop: Periodic = every(
    engineSettings.schedulerIntervalMs,
    async () => {
      const queued = await schedulerTick();
      if (queued === null) return;
      if (queued.length > 0) logger.info({ runs: queued }, "scheduled runs queued");
      // The alert rules time alone can break (docs/alerts.md), checked by a job on the alert queue.
      if (Date.now() - lastAlertSweep >= env.ALERT_SWEEP_SECONDS * 1000) {
        lastAlertSweep = Date.now();
        await queueAlertSweep();
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

// The one owner of run and sync state: every write to sync_runs (status, counters, timings), to
// syncs.status / current_cursor_field and to the change-tracking rows of sync_states. Status writes
// are conditional UPDATEs through the transition table (transitions.ts), so a concurrent change
// (cancel, disable) is never overwritten; `false` means the run or sync moved elsewhere meanwhile.
import "server-only";
import type { Pool, PoolClient } from "pg";
import { pgPool, prisma } from "@/lib/db/client";
import { BinaryCopyInput } from "@/lib/connectors/shared/pg-copy-binary";
import { codesOtherThan } from "@/lib/engine/records/format";
import { alertsOnRunEnded } from "@/lib/services/alerts/queue";
import type { Sync, SyncRun } from "@/lib/generated/prisma/client";
import type { SyncRecordAction, SyncRunStatus, SyncStatus } from "@/lib/generated/prisma/enums";
import type { EstimateSource } from "@/lib/sync-config/run-estimate";
import { lockForTransaction, triggerLockKey } from "./locks";
import { writeSkippedStates } from "./skipped-states";
import { emitRunEvent } from "./webhooks/emit";
import type { WriteTarget } from "./record-logs";
import { withTransaction } from "./transaction";
import { ACTIVE_RUN_STATUSES, runStatusesAllowing, syncStatusAfterRun } from "./transitions";

type Db = Pool | PoolClient;

export { CANCELED_ERROR, DISABLED_ERROR } from "@/lib/sync-config/run-outcome";

/** What a batch adds to its run's counters. */
export interface RunCounters {
  totalQueryRows: number;
  processedRows: number;
  totalRows: number;
  skippedRows: number;
  successfulRows: number;
  failedRows: number;
  duplicateRows: number;
}

export const zeroCounters = (): RunCounters => ({
  totalQueryRows: 0,
  processedRows: 0,
  totalRows: 0,
  skippedRows: 0,
  successfulRows: 0,
  failedRows: 0,
  duplicateRows: 0,
});

/** The run's record totals, which decide its outcome. */
export interface RunTotals {
  totalRows: number;
  successfulRows: number;
  /** Records refused or not mappable (skipped records are neither these nor successes). */
  failedRows: number;
}

const totalsOf = (r: { total_rows: number; successful_rows: number; failed_rows: number } | undefined): RunTotals => ({
  totalRows: r?.total_rows ?? 0,
  successfulRows: r?.successful_rows ?? 0,
  failedRows: r?.failed_rows ?? 0,
});

/** Milliseconds per stage, summed over the run's attempts (sync_runs.timings). */
export interface RunTimings {
  query: number;
  diff: number;
  load: number;
  wait: number;
  /** Bookkeeping: the per-batch transaction of records, states, counters and cursor. */
  record: number;
}


// ---- Run status ---------------------------------------------------------------------------------

/**
 * After a run's status changed (its first start, a hold for approval, its end): the lifecycle hooks.
 * The one place they are called from; each hook keeps its own module and never throws.
 */
async function statusChanged(runId: number, to: SyncRunStatus): Promise<void> {
  await emitRunEvent(runId, to);
}

/**
 * Conditional status change through the transition table; false when the run moved elsewhere meanwhile.
 * A run that ends drops its plan's sample rows (source rows, kept only while it was held for its
 * approver): canceled, disabled, expired or failed, nobody will approve it any more.
 */
export async function setRunStatus(
  db: Db,
  runId: number,
  to: SyncRunStatus,
  extra: { error?: string | null; finished?: boolean; canceledBy?: string } = {},
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE sync_runs SET status = $2::sync_run_status, updated_at = now(),
       error = CASE WHEN $4::boolean THEN $5 ELSE error END,
       finished_at = CASE WHEN $6::boolean THEN now() ELSE finished_at END,
       canceled_by = COALESCE($7::text, canceled_by),
       plan = CASE WHEN $6::boolean AND jsonb_typeof(plan) = 'object' THEN plan - 'samples' ELSE plan END
     WHERE id = $1 AND status = ANY($3::sync_run_status[])`,
    [runId, to, runStatusesAllowing(to), extra.error !== undefined, extra.error ?? null, extra.finished ?? false, extra.canceledBy ?? null],
  );
  const changed = (rowCount ?? 0) > 0;
  // Every end of a run passes here: alert rules are evaluated on the queue (lib/services/alerts).
  if (changed && extra.finished) await alertsOnRunEnded(runId);
  if (changed) await statusChanged(runId, to);
  return changed;
}

/**
 * Ends a run with its outcome (an error makes it failed) and, for a general run (`syncId`), the sync's
 * status after it, in one transaction: a run canceled while its last batch was being written (the
 * worker notices a cancel within a second) ends canceled and leaves the sync's status alone, instead
 * of the sync taking the outcome of a run shown as canceled. False when the run had ended meanwhile.
 */
export async function finishRun(runId: number, error: string | null, syncId: number | null = null): Promise<boolean> {
  const to: SyncRunStatus = error === null ? "success" : "failed";
  const changed = await withTransaction(pgPool(), async (client) => {
    const { rowCount } = await client.query(
      `UPDATE sync_runs SET status = $2::sync_run_status, error = $4, finished_at = now(), updated_at = now()
       WHERE id = $1 AND status = ANY($3::sync_run_status[])`,
      [runId, to, runStatusesAllowing(to), error],
    );
    if (!rowCount) return false;
    if (syncId !== null) await applySyncOutcome(syncId, to, client);
    return true;
  });
  // The hooks of setRunStatus, once the end is visible.
  if (changed) {
    await alertsOnRunEnded(runId);
    await statusChanged(runId, to);
  }
  return changed;
}

/**
 * Claims a run for this worker, which holds its lock: from queued or paused, or from a running
 * status left by a dead worker. Counts an attempt. Returns the run, or null when it ended meanwhile.
 */
export async function claimRun(runId: number): Promise<SyncRun | null> {
  // first_start: started_at was empty before this claim (a resumed or approved run started before).
  const { rows } = await pgPool().query<{ first_start: boolean }>(
    `UPDATE sync_runs r SET status = 'started', attempts = r.attempts + 1, started_at = COALESCE(r.started_at, now()),
       waiting_until = NULL, updated_at = now()
     FROM (SELECT started_at FROM sync_runs WHERE id = $1) before
     WHERE r.id = $1 AND r.status = ANY($2::sync_run_status[])
     RETURNING before.started_at IS NULL AS first_start`,
    [runId, runStatusesAllowing("started")],
  );
  if (rows.length === 0) return null;
  if (rows[0].first_start) await statusChanged(runId, "started");
  return prisma().syncRun.findUniqueOrThrow({ where: { id: runId } });
}

/** A graceful stop hands the run back (still under its lock); it does not count as an attempt. */
export async function requeueRun(runId: number): Promise<void> {
  await pgPool().query(
    `UPDATE sync_runs SET status = 'queued', attempts = GREATEST(attempts - 1, 0), updated_at = now()
     WHERE id = $1 AND status = ANY($2::sync_run_status[])`,
    [runId, runStatusesAllowing("queued")],
  );
}

/**
 * Marks a run paused until its wait is over (still under its lock); the worker then queues it to
 * start then. Like a graceful stop, a pause is not an attempt. False when it ended meanwhile.
 */
export async function pauseRun(runId: number, until: Date, retryWaits: number): Promise<boolean> {
  const { rowCount } = await pgPool().query(
    `UPDATE sync_runs SET status = 'paused', attempts = GREATEST(attempts - 1, 0), waiting_until = $2, retry_waits = $3, updated_at = now()
     WHERE id = $1 AND status = ANY($4::sync_run_status[])`,
    [runId, until, retryWaits, runStatusesAllowing("paused")],
  );
  return (rowCount ?? 0) > 0;
}

/** The reaper, under the run's free lock: a queued run without a job stays queued, its wait restarted. */
export async function touchQueuedRun(client: PoolClient, runId: number): Promise<boolean> {
  const { rowCount } = await client.query("UPDATE sync_runs SET updated_at = now() WHERE id = $1 AND status = 'queued'", [runId]);
  return (rowCount ?? 0) > 0;
}

/**
 * The reaper, under the run's free lock: a run its dead worker left running (or paused, its wait long
 * over) goes back to the queue. Only when it is still as the reaper saw it (status and last update):
 * a live worker may have paused it and let its lock go in between, and that pause must stand.
 */
export async function returnToQueue(client: PoolClient, runId: number, seen: { status: string; updatedAt: Date }): Promise<boolean> {
  const { rowCount } = await client.query(
    `UPDATE sync_runs SET status = 'queued', updated_at = now()
     WHERE id = $1 AND status = ANY($2::sync_run_status[]) AND status::text = $3 AND updated_at = $4`,
    [runId, runStatusesAllowing("queued").filter((s) => s !== "pending"), seen.status, seen.updatedAt],
  );
  return (rowCount ?? 0) > 0;
}

// ---- Run creation ---------------------------------------------------------------------------------

/**
 * Creates a queued general run unless one is active. Returns null when one is active. The caller
 * holds a transaction on `client`; the trigger lock is released at its end.
 */
export async function createGeneralRun(client: PoolClient, sync: { id: number; workspaceId: number }): Promise<number | null> {
  await lockForTransaction(client, triggerLockKey(sync.id));
  const active = await client.query(
    "SELECT id FROM sync_runs WHERE sync_id = $1 AND sync_run_type = 'general' AND status = ANY($2::sync_run_status[]) LIMIT 1",
    [sync.id, ACTIVE_RUN_STATUSES],
  );
  if ((active.rowCount ?? 0) > 0) return null;
  const { rows } = await client.query<{ id: number }>(
    `INSERT INTO sync_runs (workspace_id, sync_id, status, sync_run_type, timings, created_at, updated_at)
     VALUES ($1, $2, 'queued', 'general', '{}', now(), now()) RETURNING id`,
    [sync.workspaceId, sync.id],
  );
  return rows[0].id;
}

/** A queued test run (any number may run beside the sync's general run). */
export async function createTestRun(workspaceId: number, syncId: number, testPrimaryKey?: string): Promise<SyncRun> {
  return prisma().syncRun.create({ data: { workspaceId, syncId, status: "queued", syncRunType: "test", timings: {}, testPrimaryKey: testPrimaryKey ?? null } });
}

// ---- Counters, timings, write target --------------------------------------------------------------

/** How the error of a record skipped as already delivered (delivery-ledger.ts) begins: it counts as delivered. */
export const ALREADY_DELIVERED = "Already delivered with idempotency key";

/**
 * A retried full read re-reads everything, so read counters restart; record counters come from the
 * records. Returns the totals the run starts from.
 */
export async function resetCountersForRetry(runId: number): Promise<RunTotals> {
  const { rows } = await pgPool().query<{ total_rows: number; successful_rows: number; failed_rows: number }>(
    `UPDATE sync_runs r SET total_query_rows = 0, processed_rows = 0, skipped_rows = c.skipped, duplicate_rows = 0,
       total_rows = c.total, successful_rows = c.ok, failed_rows = c.failed, updated_at = now()
     -- Counted from the blocks' codes (lib/engine/records/format.ts): translate() deletes the codes of the
     -- other outcomes. Skipped as already delivered counts as delivered, as the engine counts it.
     FROM (SELECT coalesce(sum(b.size), 0)::int AS total,
                  coalesce(sum(length(translate(b.codes, $2, ''))), 0)::int AS ok,
                  coalesce(sum(b.failed), 0)::int AS failed,
                  coalesce(sum(length(translate(b.codes, $3, ''))), 0)::int AS skipped
           FROM sync_record_blocks b WHERE b.sync_run_id = $1) c
     WHERE r.id = $1 RETURNING r.total_rows, r.successful_rows, r.failed_rows`,
    [runId, codesOtherThan(["success", "delivered"]), codesOtherThan(["skipped"])],
  );
  return totalsOf(rows[0]);
}

/** Adds a batch's counters (in the batch's transaction when it has one); returns the run's new totals. */
export async function addBatchCounters(db: Db, runId: number, delta: RunCounters, timings: RunTimings): Promise<RunTotals> {
  const { rows } = await db.query<{ total_rows: number; successful_rows: number; failed_rows: number }>(
    `UPDATE sync_runs SET total_query_rows = total_query_rows + $2, processed_rows = processed_rows + $3,
       total_rows = total_rows + $4, skipped_rows = skipped_rows + $5, successful_rows = successful_rows + $6,
       failed_rows = failed_rows + $7, duplicate_rows = duplicate_rows + $8, timings = $9::jsonb, updated_at = now()
     WHERE id = $1 RETURNING total_rows, successful_rows, failed_rows`,
    [
      runId,
      delta.totalQueryRows,
      delta.processedRows,
      delta.totalRows,
      delta.skippedRows,
      delta.successfulRows,
      delta.failedRows,
      delta.duplicateRows,
      JSON.stringify(timings),
    ],
  );
  return totalsOf(rows[0]);
}

export async function writeTimings(runId: number, timings: RunTimings): Promise<void> {
  await pgPool().query("UPDATE sync_runs SET timings = $2::jsonb WHERE id = $1", [runId, JSON.stringify(timings)]);
}

/**
 * Stores the columns the run's text records are read back with (pass-through), unless an earlier
 * attempt stored others: false then, and this attempt takes the JSON path.
 */
export async function claimRecordColumns(runId: number, columns: object): Promise<boolean> {
  const { rowCount } = await pgPool().query(
    `UPDATE sync_runs SET record_columns = $2::jsonb WHERE id = $1 AND (record_columns IS NULL OR record_columns = $2::jsonb)`,
    [runId, JSON.stringify(columns)],
  );
  return rowCount === 1;
}

/**
 * What the run's progress is measured against (run-estimate.ts): `rows` is null when unknown, the
 * bound when the count stopped at it. A resumed attempt keeps the first one.
 */
export async function saveEstimate(runId: number, estimate: { source: EstimateSource; rows: number | null }): Promise<void> {
  await pgPool().query("UPDATE sync_runs SET estimated_rows = $2, estimate_source = $3 WHERE id = $1 AND estimate_source IS NULL", [
    runId,
    estimate.rows,
    estimate.source,
  ]);
}

/**
 * Rows the sync's latest successful general run read, when it read the model as it is now (the model
 * unchanged since that run started); null when there is none.
 */
export async function previousReadCount(syncId: number, runId: number, modelChangedAt: Date): Promise<number | null> {
  const { rows } = await pgPool().query<{ total_query_rows: number }>(
    `SELECT total_query_rows FROM sync_runs
      WHERE sync_id = $1 AND id <> $2 AND sync_run_type = 'general' AND status = 'success' AND started_at >= $3
      ORDER BY created_at DESC, id DESC LIMIT 1`,
    [syncId, runId, modelChangedAt],
  );
  return rows[0]?.total_query_rows ?? null;
}

/** What a run writes to: the logs of records that store none are derived from it (record-logs.ts). */
export async function saveWriteTarget(runId: number, target: WriteTarget): Promise<void> {
  await pgPool().query("UPDATE sync_runs SET write_target = $2::jsonb WHERE id = $1", [runId, JSON.stringify(target)]);
}

// ---- Sync status and cursor -----------------------------------------------------------------------

/** The sync's status after a general run, through the transition table (a disabled sync stays disabled). */
export async function applySyncOutcome(syncId: number, outcome: "success" | "failed" | "canceled", db: Db = pgPool()): Promise<void> {
  const pool = db;
  const { rows } = await pool.query<{ status: SyncStatus }>("SELECT status FROM syncs WHERE id = $1", [syncId]);
  if (rows.length === 0) return;
  const to = syncStatusAfterRun(rows[0].status, outcome);
  if (!to || to === rows[0].status) return;
  await pool.query("UPDATE syncs SET status = $2::sync_status, updated_at = now() WHERE id = $1 AND status = $3::sync_status", [
    syncId,
    to,
    rows[0].status,
  ]);
}

/** Disable/enable (already checked against the table): false when the sync left `from` meanwhile. */
export async function setSyncStatus(syncId: number, from: SyncStatus, to: SyncStatus, nextRunAt: Sync["nextRunAt"]): Promise<boolean> {
  const updated = await prisma().sync.updateMany({ where: { id: syncId, status: from }, data: { status: to, nextRunAt } });
  return updated.count > 0;
}

/** The incremental cursor: the next run reads rows after this value. */
export async function saveCursor(syncId: number, value: string): Promise<void> {
  await pgPool().query("UPDATE syncs SET current_cursor_field = $2, updated_at = now() WHERE id = $1", [syncId, value]);
}

// ---- Change tracking (sync_states) ----------------------------------------------------------------

/** A recorded row as change tracking sees it. */
export interface StateChange {
  ok: boolean;
  /** Skipped by the write mode (skipped-states.ts). */
  skipped?: boolean;
  item: { key: string; fingerprint: string; action: SyncRecordAction };
}

/**
 * Accepted rows store their new fingerprint; failed rows keep the last delivered one ('' when never
 * delivered) with last_status failed, so the next run retries them. Deleted rows lose their state.
 * `fresh`: the sync tracked nothing when this attempt began and keys are unique within a run, so no
 * state can conflict and COPY, several times cheaper than an upsert, is used. Rows the write mode
 * skipped: skipped-states.ts (`skipsPresent`: insert mode's skips, of keys the destination has).
 */
export async function writeStates(
  client: PoolClient,
  syncId: number,
  runId: number,
  changes: readonly StateChange[],
  fresh: boolean,
  skipsPresent = false,
): Promise<void> {
  const keys: string[] = [];
  const fps: string[] = [];
  const statuses: string[] = [];
  const deleted: string[] = [];
  const skipped: { keys: string[]; fps: string[] } = { keys: [], fps: [] };
  for (const c of changes) {
    if (c.ok && c.item.action === "destination_delete") {
      deleted.push(c.item.key);
      continue;
    }
    // Skipped by the write mode (not ok); a skip as already delivered (ok) is tracked as delivered.
    if (c.skipped && !c.ok && !fresh) {
      skipped.keys.push(c.item.key);
      skipped.fps.push(c.item.fingerprint);
      continue;
    }
    keys.push(c.item.key);
    fps.push(c.ok || c.skipped ? c.item.fingerprint : "");
    statuses.push(c.ok ? "success" : c.skipped ? "skipped" : "failed");
  }
  await writeSkippedStates(client, syncId, runId, skipped.keys, skipped.fps, skipsPresent);
  if (keys.length > 0 && fresh) {
    const input = new BinaryCopyInput();
    for (let i = 0; i < keys.length; i++) input.row(5).int4(syncId).text(keys[i]).text(fps[i]).text(statuses[i]).int4(runId);
    await input.copy(client, "COPY sync_states (sync_id, primary_key, fingerprint, last_status, last_run_id) FROM STDIN");
  } else if (keys.length > 0) {
    await client.query(
      `INSERT INTO sync_states (sync_id, primary_key, fingerprint, last_status, last_run_id, updated_at)
       SELECT $1, x.k, x.f, x.s::sync_record_status, $2, now() FROM unnest($3::text[], $4::text[], $5::text[]) AS x(k, f, s)
       ON CONFLICT (sync_id, primary_key) DO UPDATE SET
         fingerprint = CASE WHEN EXCLUDED.last_status = 'success' THEN EXCLUDED.fingerprint ELSE sync_states.fingerprint END,
         last_status = EXCLUDED.last_status, last_run_id = EXCLUDED.last_run_id, updated_at = now()`,
      [syncId, runId, keys, fps, statuses],
    );
  }
  if (deleted.length > 0) await forgetStates(client, syncId, deleted);
}

/** Rows no longer tracked: deleted in the destination, or gone from the source before ever being delivered. */
export async function forgetStates(db: Db, syncId: number, keys: string[]): Promise<void> {
  await db.query("DELETE FROM sync_states WHERE sync_id = $1 AND primary_key = ANY($2::text[])", [syncId, keys]);
}

/**
 * Unchanged rows whose state still held the engine's own fingerprint (md5 of the seed and the row's
 * JSON, what every sync stored before its source fingerprinted rows itself) take the source's
 * fingerprint without being sent, so a sync does not re-send every row once when its source starts
 * fingerprinting. Idempotent, so it needs no transaction with the counters.
 */
export async function rebaselineStates(syncId: number, keys: string[], fingerprints: string[]): Promise<void> {
  await pgPool().query(
    `UPDATE sync_states s SET fingerprint = x.f, updated_at = now()
     FROM ROWS FROM (json_array_elements_text($2::json), json_array_elements_text($3::json)) AS x(k, f)
     WHERE s.sync_id = $1 AND s.primary_key = x.k`,
    [syncId, JSON.stringify(keys), JSON.stringify(fingerprints)],
  );
}

// ---- Plan and approval (plan/guard-step.ts, runs.ts:approveRun) -----------------------------------

/** The counts a run planned before its first write (it may go on). */
export async function saveRunPlan(runId: number, plan: object): Promise<void> {
  await pgPool().query("UPDATE sync_runs SET plan = $2::jsonb, updated_at = now() WHERE id = $1", [runId, JSON.stringify(plan)]);
}

/**
 * The guard stops the run before its first write (still under its lock): needs_approval, with the
 * plan and the sentence of what it would break. Like a pause, not an attempt. False when it ended
 * meanwhile. An earlier approval no longer counts (approved_by cleared): a new plan needs a new one.
 */
export async function holdRunForApproval(runId: number, plan: object, error: string): Promise<boolean> {
  const { rowCount } = await pgPool().query(
    `UPDATE sync_runs SET status = 'needs_approval', plan = $2::jsonb, error = $3, approved_by = NULL,
       attempts = GREATEST(attempts - 1, 0), updated_at = now()
     WHERE id = $1 AND status = ANY($4::sync_run_status[])`,
    [runId, JSON.stringify(plan), error, runStatusesAllowing("needs_approval")],
  );
  const held = (rowCount ?? 0) > 0;
  if (held) await statusChanged(runId, "needs_approval");
  return held;
}

/**
 * Someone approved a held run: queued again, who in approved_by. The plan they were shown becomes
 * `approval` (plan/approval.ts), alone in sync_runs.plan, so the run plans again and goes on only
 * within it. With `plannedAt`, only the plan planned then is approved (a run held again since, with
 * another plan, is not). False unless it was waiting (with that plan).
 */
export async function approveHeldRun(runId: number, approvedBy: string, plannedAt?: string): Promise<boolean> {
  const { rowCount } = await pgPool().query(
    `UPDATE sync_runs SET status = 'queued', approved_by = $2, error = NULL, updated_at = now(),
       plan = jsonb_build_object('approval', jsonb_build_object('planned_at', plan->'planned_at', 'counts', plan->'counts',
         'tracked', plan->'tracked', 'full_read', plan->'full_read', 'changes', plan->'changes'))
     WHERE id = $1 AND status = 'needs_approval' AND ($3::text IS NULL OR plan->>'planned_at' = $3)`,
    [runId, approvedBy, plannedAt ?? null],
  );
  return (rowCount ?? 0) > 0;
}

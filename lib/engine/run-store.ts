// The one owner of run and sync state: every write to sync_runs (status, counters, timings), to
// syncs.status / current_cursor_field and to the change-tracking rows of sync_states. Status writes
// are conditional UPDATEs through the transition table (transitions.ts), so a concurrent change
// (cancel, disable) is never overwritten; `false` means the run or sync moved elsewhere meanwhile.
// This file holds the run's status writes (and its creation and approval); counters and progress
// live in run-counters.ts, the sync's status, cursor and change tracking in sync-state-store.ts.
// Both are re-exported here: the engine imports (and tests mock) all of them through this module.
import "server-only";
import type { PoolClient } from "pg";
import { sql } from "kysely";
import { pgPool, prisma } from "@/lib/db/client";
import { anyOf, sqlBuilder, viaClient } from "@/lib/db/kysely";
import type { SyncRun } from "@/lib/generated/prisma/client";
import type { SyncRunStatus } from "@/lib/generated/prisma/enums";
import { lockForTransaction, triggerLockKey, workspaceShareLockKey } from "./locks";
import { applySyncOutcome, type Db } from "./sync-state-store";
import { anyoneListens, publishRunEvent } from "./run-events";
import { withTransaction } from "./transaction";
import { ACTIVE_RUN_STATUSES, RUNNING_RUN_STATUSES, runStatusesAllowing } from "./transitions";

export { CANCELED_ERROR, DISABLED_ERROR } from "@/lib/sync-rules/run-outcome";
export * from "./run-counters";
export * from "./sync-state-store";

// ---- Run status ---------------------------------------------------------------------------------

/**
 * A status change and the run event it publishes (run-events.ts), in one transaction: subscribers
 * write their queue rows with it (events.ts). On a client, the change joins the caller's transaction
 * (the reaper's); on the pool, a transaction is opened only when someone listens to the new status.
 */
async function changeStatus(db: Db, runId: number, to: SyncRunStatus, change: (db: Db) => Promise<boolean>): Promise<boolean> {
  if (!anyoneListens(to)) return change(db);
  const publishing = async (client: PoolClient) => {
    const changed = await change(client);
    if (changed) await publishRunEvent(client, runId, to);
    return changed;
  };
  return isClient(db) ? publishing(db) : withTransaction(db, publishing);
}

const isClient = (db: Db): db is PoolClient => "release" in db;

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
  return changeStatus(db, runId, to, async (db) => {
    const { rowCount } = await db.query(
      `UPDATE sync_runs SET status = $2::sync_run_status, updated_at = now(),
       error = CASE WHEN $4::boolean THEN $5 ELSE error END,
       finished_at = CASE WHEN $6::boolean THEN now() ELSE finished_at END,
       canceled_by = COALESCE($7::text, canceled_by),
       plan = CASE WHEN $6::boolean AND jsonb_typeof(plan) = 'object' THEN plan - 'samples' ELSE plan END
     WHERE id = $1 AND status = ANY($3::sync_run_status[])`,
      [runId, to, runStatusesAllowing(to), extra.error !== undefined, extra.error ?? null, extra.finished ?? false, extra.canceledBy ?? null],
    );
    return (rowCount ?? 0) > 0;
  });
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
    // Its event commits with it (alerts, webhooks, sequences: events.ts).
    await publishRunEvent(client, runId, to);
    return true;
  });
  return changed;
}

/**
 * Claims a run for this worker, which holds its lock: from queued or paused, or from a running
 * status left by a dead worker. Counts an attempt. Returns the run, or null when it ended meanwhile.
 * With a workspace share (`share` > 0), "over_share" when the workspace already has that many runs
 * running: the count and the claim are one transaction under the workspace's lock, so two workers
 * claiming runs of one workspace at the same moment cannot both pass (the bench's scale section saw
 * two at once with a check before the claim).
 */
export async function claimRun(runId: number, share = 0): Promise<SyncRun | null | "over_share"> {
  const publishing = anyoneListens("started");
  const claimed =
    share > 0 || publishing
      ? await withTransaction(pgPool(), async (client) => ((share > 0 && (await overShare(client, runId, share))) ? ("over_share" as const) : claim(client, runId, publishing)))
      : await claim(pgPool(), runId, false);
  if (claimed === "over_share") return claimed;
  if (!claimed) return null;
  return prisma().syncRun.findUniqueOrThrow({ where: { id: runId } });
}

/** Under the workspace's lock: whether it already runs `share` other runs (a run that is gone: false, the claim finds nothing). */
async function overShare(client: PoolClient, runId: number, share: number): Promise<boolean> {
  const runs = sqlBuilder().selectFrom("sync_runs");
  const [own] = await viaClient(client, runs.select("workspace_id").where("id", "=", runId));
  if (!own) return false;
  await lockForTransaction(client, workspaceShareLockKey(own.workspace_id));
  // Read after the lock: READ COMMITTED gives this statement the claims committed before it.
  const [{ busy }] = await viaClient(
    client,
    runs
      .select((eb) => eb(eb.fn.countAll(), ">=", share).$castTo<boolean>().as("busy"))
      .where("workspace_id", "=", own.workspace_id)
      .where("id", "<>", runId)
      .where("status", "=", anyOf(RUNNING_RUN_STATUSES, "sync_run_status")),
  );
  return busy;
}

async function claim(db: Db, runId: number, publishing: boolean): Promise<boolean> {
  // first_start: started_at was empty before this claim (a resumed or approved run started before).
  const b = sqlBuilder();
  const [row] = await viaClient(
    db,
    b
      .updateTable("sync_runs as r")
      .from(b.selectFrom("sync_runs").select("started_at").where("id", "=", runId).as("before"))
      .set((eb) => ({
        status: "started",
        attempts: eb("r.attempts", "+", 1),
        started_at: eb.fn.coalesce("r.started_at", sql<Date>`now()`),
        waiting_until: null,
        updated_at: sql`now()`,
      }))
      .where("r.id", "=", runId)
      .where("r.status", "=", anyOf(runStatusesAllowing("started"), "sync_run_status"))
      .returning((eb) => eb("before.started_at", "is", null).$castTo<boolean>().as("first_start")),
  );
  if (!row) return false;
  if (publishing && row.first_start && isClient(db)) await publishRunEvent(db, runId, "started");
  return true;
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
  const [run] = await viaClient(
    client,
    sqlBuilder()
      .insertInto("sync_runs")
      .values({ workspace_id: sync.workspaceId, sync_id: sync.id, status: "queued", sync_run_type: "general", timings: sql`'{}'`, created_at: sql`now()`, updated_at: sql`now()` })
      .returning("id"),
  );
  return run.id;
}

/** A queued test run (any number may run beside the sync's general run). */
export async function createTestRun(workspaceId: number, syncId: number, testPrimaryKey?: string): Promise<SyncRun> {
  return prisma().syncRun.create({ data: { workspaceId, syncId, status: "queued", syncRunType: "test", timings: {}, testPrimaryKey: testPrimaryKey ?? null } });
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
 * `afterWrites`: a live sync's rolling run, held before a micro-batch (live/live-guard.ts), may have
 * recorded batches; any other run may not, so a hold there after a write changes nothing.
 */
export async function holdRunForApproval(runId: number, plan: object, error: string, options: { afterWrites?: boolean } = {}): Promise<boolean> {
  const from = runStatusesAllowing("needs_approval").filter((s) => options.afterWrites === true || s !== "in_progress");
  return changeStatus(pgPool(), runId, "needs_approval", async (db) => {
    const { rowCount } = await db.query(
      `UPDATE sync_runs SET status = 'needs_approval', plan = $2::jsonb, error = $3, approved_by = NULL,
         attempts = GREATEST(attempts - 1, 0), updated_at = now()
       WHERE id = $1 AND status = ANY($4::sync_run_status[])`,
      [runId, JSON.stringify(plan), error, from],
    );
    return (rowCount ?? 0) > 0;
  });
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

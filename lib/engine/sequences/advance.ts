// The engine's hook after a general run succeeded (the run event bus's run.succeeded, once the run's
// end has committed: sequencesOnRunSucceeded, subscribed by lib/services/run-events.ts): start the syncs
// that run after this one when the trigger rule (./rule.ts) says so, and record the answer on the
// steps of the sequence runs this run belongs to. Each dependent is decided and started in one
// transaction under its sync's trigger lock, so two upstreams succeeding at once start it once.
// A started run goes through the queue like any other; the hook never fails the run that called it.
import "server-only";
import type { PoolClient } from "pg";
import { pgPool } from "@/lib/db/client";
import type { SyncRunStatus, SyncStatus } from "@/lib/generated/prisma/enums";
import { logger } from "@/lib/logger";
import { lockForTransaction, triggerLockKey } from "../locks";
import { enqueueRun } from "../queue";
import { createGeneralRun } from "../run-store";
import { withTransaction } from "../transaction";
import { ACTIVE_RUN_STATUSES } from "../transitions";
import { decideTrigger, type TriggerDecision, type UpstreamFacts } from "./rule";
import type { EventContext, RunEvent } from "../events";

interface SucceededRun {
  id: number;
  sync_id: number;
  workspace_id: number;
}

/** After run `runId` ended: starts the syncs waiting on it. Never throws (a failure is logged). */
export async function startDependents(runId: number): Promise<void> {
  try {
    await advance(runId);
  } catch (err) {
    logger.warn({ err, runId }, "could not start the syncs that run after this run");
  }
}

/**
 * The run event bus's subscriber: after the success commits, the dependents are decided in
 * transactions of their own (each under its dependent's trigger lock). A worker that dies in between
 * leaves the step unchecked, and sweepLostHooks runs the hook later.
 */
export async function sequencesOnRunSucceeded(event: RunEvent, ctx: EventContext): Promise<void> {
  if (event.runType === "general") await ctx.afterCommit(() => startDependents(event.runId));
}

/** A hook this long overdue after its run's success was lost (its worker died): the sweep runs it. */
const HOOK_GRACE_SECONDS = 60;

/**
 * Runs the hook for sequence steps whose run succeeded over a minute ago but whose dependents were
 * never looked at: the worker that ran it died between the success and the hook. The hook decides
 * under each dependent's trigger lock and sees a run started since, so it never starts one twice.
 * Returns the runs it looked at.
 */
export async function sweepLostHooks(limit = 100): Promise<number[]> {
  const { rows } = await pgPool().query<{ sync_run_id: number }>(
    `SELECT DISTINCT st.sync_run_id FROM sequence_run_steps st JOIN sync_runs r ON r.id = st.sync_run_id
     WHERE st.dependents_checked_at IS NULL AND r.status = 'success' AND r.finished_at < now() - make_interval(secs => $1)
     ORDER BY st.sync_run_id LIMIT $2`,
    [HOOK_GRACE_SECONDS, limit],
  );
  for (const r of rows) await startDependents(r.sync_run_id);
  return rows.map((r) => r.sync_run_id);
}

async function advance(runId: number): Promise<void> {
  const pool = pgPool();
  const { rows } = await pool.query<SucceededRun>(
    "SELECT id, sync_id, workspace_id FROM sync_runs WHERE id = $1 AND status = 'success' AND sync_run_type = 'general'",
    [runId],
  );
  const run = rows[0];
  if (!run) return;
  const [dependents, sequences] = await Promise.all([
    pool.query<{ sync_id: number }>(
      `SELECT d.sync_id FROM sync_dependencies d JOIN syncs s ON s.id = d.sync_id AND s.deleted_at IS NULL
       WHERE d.upstream_sync_id = $1 AND d.workspace_id = $2 ORDER BY d.sync_id`,
      [run.sync_id, run.workspace_id],
    ),
    pool.query<{ sequence_run_id: number }>("SELECT sequence_run_id FROM sequence_run_steps WHERE sync_run_id = $1", [run.id]),
  ]);
  const sequenceIds = sequences.rows.map((r) => r.sequence_run_id);
  for (const { sync_id } of dependents.rows) {
    // One dependent's failure is logged and does not keep the others from starting.
    const started = await withTransaction(pool, (client) => decideAndStart(client, run, sync_id, sequenceIds)).catch((err: unknown) => {
      logger.warn({ err, runId, syncId: sync_id }, "could not decide whether to start a sync after its upstream");
      return null;
    });
    // Committed queued; were the send to fail, the reaper re-sends a queued run that has no job.
    if (started !== null) await enqueueRun(started).catch((err: unknown) => logger.warn({ err, runId: started }, "could not queue a run after its upstreams"));
  }
  if (sequenceIds.length > 0) await pool.query("UPDATE sequence_run_steps SET dependents_checked_at = now(), updated_at = now() WHERE sync_run_id = $1", [run.id]);
}

async function decideAndStart(client: PoolClient, run: SucceededRun, syncId: number, sequenceIds: number[]): Promise<number | null> {
  await lockForTransaction(client, triggerLockKey(syncId));
  const sync = await client.query<{ status: SyncStatus }>("SELECT status FROM syncs WHERE id = $1 AND deleted_at IS NULL FOR SHARE", [syncId]);
  const latest = await client.query<{ id: number; created_at: Date }>(
    "SELECT id, created_at FROM sync_runs WHERE sync_id = $1 AND sync_run_type = 'general' ORDER BY created_at DESC, id DESC LIMIT 1",
    [syncId],
  );
  const active = await client.query<{ id: number }>(
    "SELECT id FROM sync_runs WHERE sync_id = $1 AND sync_run_type = 'general' AND status = ANY($2::sync_run_status[]) ORDER BY id DESC LIMIT 1",
    [syncId, ACTIVE_RUN_STATUSES],
  );
  const upstreams = await upstreamFacts(client, syncId);
  if (!sync.rows[0]) return null;
  const decision = decideTrigger(
    { syncId, disabled: sync.rows[0].status === "disabled", lastRunCreatedAt: latest.rows[0]?.created_at ?? null, activeRunId: active.rows[0]?.id ?? null },
    upstreams,
  );
  let started: number | null = null;
  if (decision.action === "start") started = await createGeneralRun(client, { id: syncId, workspaceId: run.workspace_id });
  if (sequenceIds.length > 0) await recordOnSteps(client, sequenceIds, syncId, decision, started ?? (decision.action === "started" ? latest.rows[0].id : null));
  return started;
}

/** The sync's upstreams (not deleted) with their latest general run. */
async function upstreamFacts(client: PoolClient, syncId: number): Promise<UpstreamFacts[]> {
  const { rows } = await client.query<{ id: number; disabled: boolean; run_id: number | null; status: SyncRunStatus | null; finished_at: Date | null }>(
    `SELECT s.id, s.status = 'disabled' AS disabled, lr.id AS run_id, lr.status, lr.finished_at
     FROM sync_dependencies d
     JOIN syncs s ON s.id = d.upstream_sync_id AND s.deleted_at IS NULL
     LEFT JOIN LATERAL (
       SELECT id, status, finished_at FROM sync_runs
       WHERE sync_id = s.id AND sync_run_type = 'general' ORDER BY created_at DESC, id DESC LIMIT 1
     ) lr ON true
     WHERE d.sync_id = $1`,
    [syncId],
  );
  return rows.map((r) => ({
    syncId: r.id,
    disabled: r.disabled,
    latestRun: r.run_id === null || r.status === null ? null : { id: r.run_id, status: r.status, finishedAt: r.finished_at },
  }));
}

/**
 * The answer on the sync's waiting steps of these sequences: its run (started now, or started since
 * the upstream succeeded), skipped, blocked, or still waiting with the reason.
 */
async function recordOnSteps(client: PoolClient, sequenceIds: number[], syncId: number, decision: TriggerDecision, runId: number | null): Promise<void> {
  const reason = decision.action === "start" ? null : decision.reason;
  let state: "waiting" | "triggered" | "skipped" | "blocked" = "waiting";
  if (runId !== null) state = "triggered";
  else if (decision.action === "skip") state = "skipped";
  else if (decision.action === "busy" || decision.action === "start") state = "blocked";
  await client.query(
    `UPDATE sequence_run_steps SET state = $3, sync_run_id = $4, reason = $5, updated_at = now()
     WHERE sequence_run_id = ANY($1::int[]) AND sync_id = $2 AND state = 'waiting'`,
    [sequenceIds, syncId, state, runId, runId === null && decision.action === "start" ? `sync ${syncId} could not be started` : reason],
  );
}

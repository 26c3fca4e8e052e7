// The engine's hook after a general run succeeded (the run event bus's run.succeeded, once the run's
// end has committed: sequencesOnRunSucceeded, subscribed by lib/services/run-events.ts): start the syncs
// that run after this one when the trigger rule (./rule.ts) says so, and record the answer on the
// steps of the sequence runs this run belongs to. Each dependent is decided and started in one
// transaction under its sync's trigger lock, so two upstreams succeeding at once start it once.
// A started run goes through the queue like any other; the hook never fails the run that called it.
import "server-only";
import { sql } from "kysely";
import type { PoolClient } from "pg";
import { pgPool } from "@/lib/db/client";
import { db, viaClient } from "@/lib/db/kysely";
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
  const rows = await db()
    .selectFrom("sequence_run_steps as st")
    .innerJoin("sync_runs as r", "r.id", "st.sync_run_id")
    .select("st.sync_run_id")
    .distinct()
    .where("st.dependents_checked_at", "is", null)
    .where("r.status", "=", "success")
    .where("r.finished_at", "<", sql<Date>`now() - make_interval(secs => ${HOOK_GRACE_SECONDS})`)
    .orderBy("st.sync_run_id")
    .limit(limit)
    .execute();
  // The join makes the column non-null, which the table's type cannot say.
  const runIds = rows.flatMap((r) => (r.sync_run_id === null ? [] : [r.sync_run_id]));
  for (const id of runIds) await startDependents(id);
  return runIds;
}

async function advance(runId: number): Promise<void> {
  const pool = pgPool();
  const run = await db()
    .selectFrom("sync_runs")
    .select(["id", "sync_id", "workspace_id"])
    .where("id", "=", runId)
    .where("status", "=", "success")
    .where("sync_run_type", "=", "general")
    .executeTakeFirst();
  if (!run) return;
  const [dependents, sequences] = await Promise.all([
    db()
      .selectFrom("sync_dependencies as d")
      .innerJoin("syncs as s", (join) => join.onRef("s.id", "=", "d.sync_id").on("s.deleted_at", "is", null))
      .select("d.sync_id")
      .where("d.upstream_sync_id", "=", run.sync_id)
      .where("d.workspace_id", "=", run.workspace_id)
      .orderBy("d.sync_id")
      .execute(),
    db().selectFrom("sequence_run_steps").select("sequence_run_id").where("sync_run_id", "=", run.id).execute(),
  ]);
  const sequenceIds = sequences.map((r) => r.sequence_run_id);
  for (const { sync_id } of dependents) {
    // One dependent's failure is logged and does not keep the others from starting.
    const started = await withTransaction(pool, (client) => decideAndStart(client, run, sync_id, sequenceIds)).catch((err: unknown) => {
      logger.warn({ err, runId, syncId: sync_id }, "could not decide whether to start a sync after its upstream");
      return null;
    });
    // Committed queued; were the send to fail, the reaper re-sends a queued run that has no job.
    if (started !== null) await enqueueRun(started).catch((err: unknown) => logger.warn({ err, runId: started }, "could not queue a run after its upstreams"));
  }
  if (sequenceIds.length > 0) {
    await db()
      .updateTable("sequence_run_steps")
      .set({ dependents_checked_at: sql`now()`, updated_at: sql`now()` })
      .where("sync_run_id", "=", run.id)
      .execute();
  }
}

async function decideAndStart(client: PoolClient, run: SucceededRun, syncId: number, sequenceIds: number[]): Promise<number | null> {
  await lockForTransaction(client, triggerLockKey(syncId));
  const [sync] = await viaClient(client, db().selectFrom("syncs").select("status").where("id", "=", syncId).where("deleted_at", "is", null).forShare());
  const generalRuns = db().selectFrom("sync_runs").where("sync_id", "=", syncId).where("sync_run_type", "=", "general");
  const [latest] = await viaClient(client, generalRuns.select(["id", "created_at"]).orderBy("created_at", "desc").orderBy("id", "desc").limit(1));
  const [active] = await viaClient(
    client,
    generalRuns
      .select("id")
      .where("status", "in", [...ACTIVE_RUN_STATUSES])
      .orderBy("id", "desc")
      .limit(1),
  );
  const upstreams = await upstreamFacts(client, syncId);
  if (!sync) return null;
  const decision = decideTrigger(
    { syncId, disabled: sync.status === "disabled", lastRunCreatedAt: latest?.created_at ?? null, activeRunId: active?.id ?? null },
    upstreams,
  );
  let started: number | null = null;
  if (decision.action === "start") started = await createGeneralRun(client, { id: syncId, workspaceId: run.workspace_id });
  if (sequenceIds.length > 0) await recordOnSteps(client, sequenceIds, syncId, decision, started ?? (decision.action === "started" ? (latest?.id ?? null) : null));
  return started;
}

/** The sync's upstreams (not deleted) with their latest general run. */
async function upstreamFacts(client: PoolClient, syncId: number): Promise<UpstreamFacts[]> {
  const rows = await viaClient(
    client,
    db()
      .selectFrom("sync_dependencies as d")
      .innerJoin("syncs as s", (join) => join.onRef("s.id", "=", "d.upstream_sync_id").on("s.deleted_at", "is", null))
      .leftJoinLateral(
        (eb) =>
          eb
            .selectFrom("sync_runs as lr")
            .select(["lr.id", "lr.status", "lr.finished_at"])
            .whereRef("lr.sync_id", "=", "s.id")
            .where("lr.sync_run_type", "=", "general")
            .orderBy("lr.created_at", "desc")
            .orderBy("lr.id", "desc")
            .limit(1)
            .as("lr"),
        (join) => join.onTrue(),
      )
      .select((eb) => ["s.id", eb("s.status", "=", "disabled").$castTo<boolean>().as("disabled"), "lr.id as run_id", "lr.status as run_status", "lr.finished_at"])
      .where("d.sync_id", "=", syncId),
  );
  return rows.map((r) => ({
    syncId: r.id,
    disabled: r.disabled,
    latestRun: r.run_id === null || r.run_status === null ? null : { id: r.run_id, status: r.run_status, finishedAt: r.finished_at },
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
  await viaClient(
    client,
    db()
      .updateTable("sequence_run_steps")
      .set({ state, sync_run_id: runId, reason: runId === null && decision.action === "start" ? `sync ${syncId} could not be started` : reason, updated_at: sql`now()` })
      .where("sequence_run_id", "in", sequenceIds)
      .where("sync_id", "=", syncId)
      .where("state", "=", "waiting"),
  );
}

// What the REST layer calls to start, cancel and test runs, and to change a sync's status. All take
// workspace-scoped ids ("not yours" is the same 404 as "does not exist") and throw typed errors.
import "server-only";
import { pgPool, prisma } from "@/lib/db/client";
import { db, viaClient } from "@/lib/db/kysely";
import { Conflict, FailedDependency, NotFound } from "@/lib/errors";
import type { Sync, SyncRun } from "@/lib/generated/prisma/client";
import type { SyncStatus } from "@/lib/generated/prisma/enums";
import { cancelRunJobs, enqueueRun } from "./queue";
import {
  approveHeldRun,
  CANCELED_ERROR,
  createGeneralRun,
  createTestRun,
  DISABLED_ERROR,
  setRunStatus,
  setSyncStatus,
} from "./run-store";
import { computeNextRunAt } from "@/lib/sync-rules/schedule";
import { withTransaction } from "./transaction";
import { ACTIVE_RUN_STATUSES, assertSyncTransition } from "./transitions";

async function findSync(workspaceId: number, syncId: number): Promise<Sync> {
  const sync = await prisma().sync.findFirst({ where: { id: syncId, workspaceId, deletedAt: null } });
  if (!sync) throw new NotFound(`Sync ${syncId} was not found.`);
  return sync;
}

/** Sends a freshly created run to the queue; if that fails the run is failed rather than left stranded. */
async function enqueueOrFail(run: SyncRun): Promise<SyncRun> {
  try {
    await enqueueRun(run.id);
  } catch (err) {
    await setRunStatus(pgPool(), run.id, "failed", { error: `The run could not be queued: ${(err as Error).message}`, finished: true });
    throw err;
  }
  return run;
}

/** Manual trigger. 424 when the sync is disabled or a run is already active. */
export async function triggerSync(workspaceId: number, syncId: number): Promise<SyncRun> {
  const sync = await findSync(workspaceId, syncId);
  if (sync.status === "disabled") throw new FailedDependency(`Sync ${syncId} is disabled; enable it before running it.`);
  const runId = await withTransaction(pgPool(), async (client) => {
    // Re-read under the trigger lock: a disable racing with this trigger wins.
    const [row] = await viaClient(client, db().selectFrom("syncs").select("status").where("id", "=", syncId).forShare());
    if (row?.status === "disabled") throw new FailedDependency(`Sync ${syncId} is disabled; enable it before running it.`);
    return createGeneralRun(client, sync);
  });
  if (runId === null) throw new FailedDependency(await busyMessage(syncId));
  return enqueueOrFail(await prisma().syncRun.findUniqueOrThrow({ where: { id: runId } }));
}

/** Why a sync cannot start a run now: one runs, or one waits for approval. */
async function busyMessage(syncId: number): Promise<string> {
  const held = await prisma().syncRun.findFirst({ where: { syncId, syncRunType: "general", status: "needs_approval" }, select: { id: true } });
  return held
    ? `Sync ${syncId} has run ${held.id} waiting for approval (it would exceed the sync's limits); approve or cancel it first.`
    : `Sync ${syncId} is already running; wait for the run to finish or cancel it.`;
}

/**
 * Lets a run the guard held (needs_approval) go on: queued again with who approved it, bound to the
 * plan it was held with (run-store.ts approveHeldRun, plan/approval.ts). 404 for another sync's or
 * workspace's run, 409 when it is not waiting, or `plannedAt` (the plan the approver saw) is not its plan.
 */
export async function approveRun(workspaceId: number, syncId: number, runId: number, approvedBy: string, plannedAt?: string): Promise<SyncRun> {
  await findSync(workspaceId, syncId);
  const run = await prisma().syncRun.findFirst({ where: { id: runId, syncId, workspaceId } });
  if (!run) throw new NotFound(`Sync run ${runId} of sync ${syncId} was not found.`);
  if (!(await approveHeldRun(run.id, approvedBy, plannedAt))) {
    const shown = (run.plan as { planned_at?: unknown } | null)?.planned_at;
    if (run.status === "needs_approval" && plannedAt !== undefined && shown !== plannedAt) {
      throw new Conflict(
        `Sync run ${runId} was held again with another plan (planned at ${String(shown)}) since the one you approved (${plannedAt}); review the new plan and approve it instead.`,
      );
    }
    throw new Conflict(`Sync run ${runId} is not waiting for approval (its status is ${run.status === "needs_approval" ? "changing" : run.status}); only a run stopped by the sync's limits can be approved.`);
  }
  return enqueueOrFail(await prisma().syncRun.findUniqueOrThrow({ where: { id: run.id } }));
}

/**
 * Cancels the sync's active general run: it ends failed with the reason in `error` (a run that
 * could not finish is failed, docs/architecture.md) and `canceledBy` (who did it) in canceled_by. The sync keeps
 * its status: a cancel says nothing about its health. 424 when there is none.
 */
export async function cancelSync(workspaceId: number, syncId: number, canceledBy?: string): Promise<SyncRun> {
  await findSync(workspaceId, syncId);
  const active = await prisma().syncRun.findFirst({
    where: { syncId, syncRunType: "general", status: { in: [...ACTIVE_RUN_STATUSES] } },
    orderBy: { id: "desc" },
  });
  if (!active || !(await setRunStatus(pgPool(), active.id, "failed", { error: CANCELED_ERROR, finished: true, canceledBy }))) {
    throw new FailedDependency(`Sync ${syncId} has no active run to cancel.`);
  }
  // A worker running it notices within a second and stops; a run still waiting never starts.
  await cancelRunJobs(active.id).catch(() => undefined);
  return prisma().syncRun.findUniqueOrThrow({ where: { id: active.id } });
}

/** Cancels one run by id (POST …/sync_runs/{id}/cancel): 404 when not the sync's, 409 when it has already ended. */
export async function cancelRun(workspaceId: number, syncId: number, runId: number, canceledBy?: string): Promise<SyncRun> {
  await findSync(workspaceId, syncId);
  const run = await prisma().syncRun.findFirst({ where: { id: runId, syncId, workspaceId } });
  if (!run) throw new NotFound(`Sync run ${runId} of sync ${syncId} was not found.`);
  const active = (ACTIVE_RUN_STATUSES as readonly string[]).includes(run.status);
  if (!active || !(await setRunStatus(pgPool(), run.id, "failed", { error: CANCELED_ERROR, finished: true, canceledBy }))) {
    throw new Conflict(`Sync run ${runId} is not active (status ${run.status}); there is nothing to cancel.`);
  }
  await cancelRunJobs(run.id).catch(() => undefined);
  return prisma().syncRun.findUniqueOrThrow({ where: { id: run.id } });
}

/** A test run: one row of the model (by primary key, else random), sent on its own, change-tracking untouched. 424 when disabled. */
export async function triggerTestRun(workspaceId: number, syncId: number, primaryKey?: string): Promise<SyncRun> {
  const sync = await findSync(workspaceId, syncId);
  if (sync.status === "disabled") throw new FailedDependency(`Sync ${syncId} is disabled; enable it before testing it.`);
  return enqueueOrFail(await createTestRun(workspaceId, syncId, primaryKey));
}

/**
 * Changes a sync's status through the transition table (409 Conflict when not allowed). Disabling
 * cancels its waiting or running general run and clears next_run_at; enabling makes it pending and
 * schedules the next run.
 */
export async function transitionSyncStatus(workspaceId: number, syncId: number, to: SyncStatus, actor?: string): Promise<Sync> {
  const sync = await findSync(workspaceId, syncId);
  assertSyncTransition(sync.status, to);
  if (sync.status === to) return sync;
  const nextRunAt = to === "disabled" ? null : computeNextRunAt({ ...sync, status: to });
  if (!(await setSyncStatus(syncId, sync.status, to, nextRunAt))) return transitionSyncStatus(workspaceId, syncId, to, actor);
  if (to === "disabled") {
    const active = await prisma().syncRun.findMany({
      where: { syncId, syncRunType: "general", status: { in: [...ACTIVE_RUN_STATUSES] } },
      select: { id: true },
    });
    for (const run of active) {
      await setRunStatus(pgPool(), run.id, "failed", { error: DISABLED_ERROR, finished: true, canceledBy: actor });
      await cancelRunJobs(run.id).catch(() => undefined);
    }
  }
  return prisma().sync.findUniqueOrThrow({ where: { id: syncId } });
}

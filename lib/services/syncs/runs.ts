// Sync runs of a sync (the sync must be the workspace's and not deleted).
import "server-only";
import { prisma } from "@/lib/db/client";
import { NotFound } from "@/lib/errors";
import type { Prisma, SyncRun } from "@/lib/generated/prisma/client";
import type { Page } from "@/lib/page";
import type { ListSyncRunsQuery } from "@/lib/validation/sync-runs";
import { serializeRunPlan } from "@/lib/serializers/plans";
import type { SyncRunPlanBody } from "@/lib/serializers/plans.schema";
import { longPoll, type Waiter } from "./long-poll";
import { requireSync } from "./syncs";

export async function listSyncRuns(workspaceId: number, syncId: number, filter: ListSyncRunsQuery, page: Page) {
  const where: Prisma.SyncRunWhereInput = {
    syncId,
    workspaceId,
    sync: { workspaceId, deletedAt: null },
    ...(filter.status ? { status: filter.status } : {}),
    ...(filter.sync_run_type ? { syncRunType: filter.sync_run_type } : {}),
  };
  const db = prisma();
  const [rows, total] = await Promise.all([
    db.syncRun.findMany({ where, orderBy: [{ updatedAt: "desc" }, { id: "desc" }], skip: page.skip, take: page.take }),
    db.syncRun.count({ where }),
  ]);
  // No runs may also mean no such sync, which is a 404 like on every route under the sync.
  if (total === 0) await requireSync(workspaceId, syncId);
  return { rows, total };
}

/** One run of a sync; 404 names the run (and the sync, when that is what is missing). */
export async function getSyncRun(workspaceId: number, syncId: number, id: number): Promise<SyncRun> {
  // One statement on the way that matters (the run exists); the sync is looked up on its own only
  // to say which of the two is missing.
  const run = await prisma().syncRun.findFirst({ where: { id, syncId, workspaceId, sync: { workspaceId, deletedAt: null } } });
  if (run) return run;
  await requireSync(workspaceId, syncId);
  throw new NotFound(`Sync run ${id} of sync ${syncId} was not found.`);
}

/**
 * Statuses after which a run changes no more without someone acting: a waiting orchestrator gets
 * control back. needs_approval is included because the run stays held until a person approves it,
 * which may take longer than any wait; the caller decides whether to approve or page someone.
 */
export const SETTLED_RUN_STATUSES: ReadonlySet<SyncRun["status"]> = new Set(["success", "failed", "canceled", "needs_approval"]);

/** getSyncRun, long-polling up to `waitSeconds` for the run to settle (./long-poll.ts). */
export async function waitForSyncRun(
  who: Waiter,
  syncId: number,
  id: number,
  waitSeconds: number,
  signal?: AbortSignal,
): Promise<SyncRun> {
  return longPoll(who, waitSeconds, () => getSyncRun(who.workspaceId, syncId, id), isSettled, signal);
}

/** One run of the workspace by id alone (GET /api/v1/sync_runs/{id}); another workspace's is a 404. */
export async function getWorkspaceSyncRun(workspaceId: number, id: number): Promise<SyncRun> {
  const run = await prisma().syncRun.findFirst({ where: { id, workspaceId, sync: { workspaceId, deletedAt: null } } });
  if (!run) throw new NotFound(`Sync run ${id} was not found.`);
  return run;
}

/** getWorkspaceSyncRun with the same long-poll as waitForSyncRun. */
export async function waitForWorkspaceSyncRun(who: Waiter, id: number, waitSeconds: number, signal?: AbortSignal): Promise<SyncRun> {
  return longPoll(who, waitSeconds, () => getWorkspaceSyncRun(who.workspaceId, id), isSettled, signal);
}

const isSettled = (run: SyncRun): boolean => SETTLED_RUN_STATUSES.has(run.status);

/** The plan a run kept, with the samples it was held with (GET …/sync_runs/{id}/plan); 404 when it planned nothing. */
export async function getSyncRunPlan(workspaceId: number, syncId: number, id: number): Promise<SyncRunPlanBody> {
  const run = await getSyncRun(workspaceId, syncId, id);
  const plan = serializeRunPlan(run.id, run.plan);
  if (plan === null) {
    throw new NotFound(`Sync run ${id} of sync ${syncId} kept no plan: only runs of a sync whose limits are in force plan before their first write.`);
  }
  return plan;
}

// Sync runs of a sync (the sync must be the workspace's and not deleted).
import "server-only";
import { prisma } from "@/lib/db/client";
import { NotFound } from "@/lib/errors";
import type { Prisma, SyncRun } from "@/lib/generated/prisma/client";
import type { Page } from "@/lib/page";
import type { ListSyncRunsQuery } from "@/lib/validation/sync-runs";
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

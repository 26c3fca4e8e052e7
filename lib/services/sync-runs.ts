// Sync runs of a sync (the sync must be the workspace's and not deleted).
import { prisma } from "@/lib/db/client";
import { NotFound } from "@/lib/errors";
import type { Prisma, SyncRun } from "@/lib/generated/prisma/client";
import type { Page } from "@/lib/http/pagination";
import type { ListSyncRunsQuery } from "@/lib/validation/sync-runs";
import { requireSync } from "./syncs";

export async function listSyncRuns(workspaceId: number, syncId: number, filter: ListSyncRunsQuery, page: Page) {
  await requireSync(workspaceId, syncId);
  const where: Prisma.SyncRunWhereInput = {
    syncId,
    workspaceId,
    ...(filter.status ? { status: filter.status } : {}),
    ...(filter.sync_run_type ? { syncRunType: filter.sync_run_type } : {}),
  };
  const db = prisma();
  const [rows, total] = await db.$transaction([
    db.syncRun.findMany({ where, orderBy: [{ updatedAt: "desc" }, { id: "desc" }], skip: page.skip, take: page.take }),
    db.syncRun.count({ where }),
  ]);
  return { rows, total };
}

/** One run of a sync; 404 names the run (and the sync, when that is what is missing). */
export async function getSyncRun(workspaceId: number, syncId: number, id: number): Promise<SyncRun> {
  await requireSync(workspaceId, syncId);
  const run = await prisma().syncRun.findFirst({ where: { id, syncId, workspaceId } });
  if (!run) throw new NotFound(`Sync run ${id} of sync ${syncId} was not found.`);
  return run;
}

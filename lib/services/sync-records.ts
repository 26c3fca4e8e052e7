// Records of one sync run, oldest first. Filters and order follow the (sync_run_id, status, id) and
// (sync_run_id, action, id) indexes, so a page is an index range scan even for runs of millions.
import { prisma } from "@/lib/db/client";
import type { Prisma } from "@/lib/generated/prisma/client";
import type { Page } from "@/lib/http/pagination";
import type { ListSyncRecordsQuery } from "@/lib/validation/sync-records";
import { getSyncRun } from "./sync-runs";

export async function listSyncRecords(workspaceId: number, syncId: number, syncRunId: number, filter: ListSyncRecordsQuery, page: Page) {
  // Scopes the run to the workspace and the sync; 404 {message naming the run} otherwise.
  await getSyncRun(workspaceId, syncId, syncRunId);
  const where: Prisma.SyncRecordWhereInput = {
    syncRunId,
    ...(filter.status ? { status: filter.status } : {}),
    ...(filter.action ? { action: filter.action } : {}),
  };
  const db = prisma();
  const pageWhere = filter.after_id !== undefined ? { ...where, id: { gt: filter.after_id } } : where;
  const [rows, total] = await db.$transaction([
    db.syncRecord.findMany({
      where: pageWhere,
      orderBy: { id: "asc" },
      // With after_id the cursor replaces OFFSET; page numbers still work for the links.
      skip: filter.after_id !== undefined ? 0 : page.skip,
      take: page.take,
    }),
    db.syncRecord.count({ where }),
  ]);
  return { rows, total };
}

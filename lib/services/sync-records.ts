// Records of one sync run, oldest first. Filters and order follow the (sync_run_id, status, id) and
// (sync_run_id, action, id) indexes, so a page is an index range scan even for runs of millions.
import { prisma } from "@/lib/db/client";
import { ACTIVE_RUN_STATUSES, recordRetentionDays } from "@/lib/engine";
import type { Prisma, SyncRun } from "@/lib/generated/prisma/client";
import type { Page } from "@/lib/http/pagination";
import type { ListSyncRecordsQuery } from "@/lib/validation/sync-records";
import { getSyncRun } from "./sync-runs";

export async function listSyncRecords(workspaceId: number, syncId: number, syncRunId: number, filter: ListSyncRecordsQuery, page: Page) {
  // Scopes the run to the workspace and the sync; 404 {message naming the run} otherwise.
  const run = await getSyncRun(workspaceId, syncId, syncRunId);
  const where: Prisma.SyncRecordWhereInput = {
    syncRunId,
    ...(filter.status ? { status: filter.status } : {}),
    ...(filter.action ? { action: filter.action } : {}),
  };
  const db = prisma();
  const pageWhere = filter.after_id !== undefined ? { ...where, id: { gt: filter.after_id } } : where;
  const known = totalFromCounters(run, filter);
  if (known !== undefined) {
    const rows = await db.syncRecord.findMany({
      where: pageWhere,
      orderBy: { id: "asc" },
      skip: filter.after_id !== undefined ? 0 : page.skip,
      take: page.take,
    });
    return { rows, total: known };
  }
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

/**
 * A finished run's record count without counting: its records never change until retention prunes
 * them, and the engine commits each batch's records and the run's counters in one transaction, so
 * total_rows / successful_rows / failed_rows are exact. count(*) over a run of a million records
 * cost ~200 ms a page and, at 50 concurrent requests, exhausted the pool (500s; see bench/api.ts).
 * Undefined (count instead) for running runs, action filters, and runs retention may have pruned.
 */
function totalFromCounters(run: SyncRun, filter: ListSyncRecordsQuery): number | undefined {
  if (filter.action || !run.finishedAt || ACTIVE_RUN_STATUSES.includes(run.status)) return undefined;
  // Pruning deletes the records of runs finished before now − retention; a day of margin.
  if (run.finishedAt.getTime() < Date.now() - (recordRetentionDays() - 1) * 86_400_000) return undefined;
  if (!filter.status) return run.totalRows;
  if (filter.status === "success") return run.successfulRows;
  if (filter.status === "failed") return run.failedRows;
  return undefined;
}

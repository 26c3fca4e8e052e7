// Records of one sync run, oldest first, read from the run's record blocks (lib/engine/records): a page
// reads the blocks' heads (a few numbers per thousand records), then only the lines it shows.
// status=failed has the partial index sync_record_blocks_failed, so it never reads the blocks of
// successes; other filters count their matches from the blocks' codes; a primary key search looks
// for the key in the blocks' keys and reads only the blocks that hold it.
import "server-only";
import { queryRows } from "@/lib/db/client";
import { parseWriteTarget } from "@/lib/engine/record-logs";
import { NotFound } from "@/lib/errors";
import { Prisma } from "@/lib/generated/prisma/client";
import type { Page } from "@/lib/page";
import { blockHeads, pageHeads, readAll, readWindow, type ExpandOptions, type RecordFilter } from "@/lib/engine/records/read";
import type { SyncRecord } from "@/lib/engine/records/types";
import type { ListSyncRecordsQuery } from "@/lib/validation/sync-records";
import { getSyncRun } from "./sync-runs";

interface ScopedRunRow {
  write_target: Prisma.JsonValue | null;
  record_columns: Prisma.JsonValue | null;
}

/** The run, scoped to the workspace and to a sync that is not deleted; 404 naming what is missing. */
async function scopedRun(workspaceId: number, syncId: number, syncRunId: number): Promise<ScopedRunRow> {
  const [run] = await queryRows<ScopedRunRow>(Prisma.sql`
    SELECT r.write_target, r.record_columns
      FROM sync_runs r
      JOIN syncs s ON s.id = r.sync_id AND s.workspace_id = ${workspaceId} AND s.deleted_at IS NULL
     WHERE r.id = ${syncRunId} AND r.sync_id = ${syncId} AND r.workspace_id = ${workspaceId}`);
  if (run) return run;
  // Says whether the sync or the run is missing.
  await getSyncRun(workspaceId, syncId, syncRunId);
  throw new NotFound(`Sync run ${syncRunId} of sync ${syncId} was not found.`);
}

export function recordFilterOf(filter: { status?: RecordFilter["status"]; action?: RecordFilter["action"]; primary_key?: string }): RecordFilter {
  return { status: filter.status, action: filter.action, primaryKey: filter.primary_key };
}

export async function listSyncRecords(workspaceId: number, syncId: number, syncRunId: number, filter: ListSyncRecordsQuery, page: Page) {
  const run = await scopedRun(workspaceId, syncId, syncRunId);
  const options: ExpandOptions = { runId: syncRunId, recordColumns: run.record_columns, filter: recordFilterOf(filter), afterId: filter.after_id };
  // With after_id the cursor replaces the offset; page numbers still work for the links.
  const skip = filter.after_id !== undefined ? 0 : page.skip;
  const { rows, total } =
    options.filter.primaryKey !== undefined
      ? await keySearch(options, skip, page.take)
      : await pagedRead(options, skip, page.take);
  // The run's write target, for the logs of records that stored none (record-logs.ts).
  return { rows, total, writeTarget: parseWriteTarget(run.write_target) };
}

/** A page and the run's total: the heads the page needs, then only its lines. */
async function pagedRead(options: ExpandOptions, skip: number, take: number): Promise<{ rows: SyncRecord[]; total: number }> {
  const heads = await pageHeads(options.runId, options.filter, { skip, take, afterId: options.afterId });
  return { rows: await readWindow(heads, options, skip, take), total: heads.total };
}

/** A key search: the few blocks that hold the key, read once for both the page and the total. */
async function keySearch(options: ExpandOptions, skip: number, take: number): Promise<{ rows: SyncRecord[]; total: number }> {
  const matching: SyncRecord[] = [];
  for await (const records of readAll(await blockHeads(options.runId, options.filter), { ...options, afterId: undefined })) matching.push(...records);
  const { afterId } = options;
  const rows = afterId !== undefined ? matching.filter((r) => r.id > afterId).slice(0, take) : matching.slice(skip, skip + take);
  return { rows, total: matching.length };
}

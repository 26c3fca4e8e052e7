// Records of one sync run, oldest first, read from the run's record blocks (lib/engine/records): a page
// reads the blocks' heads (a few numbers per thousand records), then only the lines it shows.
// status=failed has the partial index sync_record_blocks_failed, so it never reads the blocks of
// successes; other filters count their matches from the blocks' codes; a primary key search looks
// for the key in the blocks' keys and reads only the blocks that hold it.
import "server-only";
import type { InferResult } from "kysely";
import { compiledByShape, selectRows, sqlBuilder } from "@/lib/db/kysely";
import { NotFound } from "@/lib/errors";
import type { Page } from "@/lib/page";
import {
  blockHeads,
  parseWriteTarget,
  pageHeadsOf,
  pageHeadsQuery,
  pageLinesQuery,
  pageOfLines,
  readAll,
  readWindow,
  toPageHeads,
  type ExpandOptions,
  type PageHeadsShape,
  type PageHeadsValues,
  type RecordFilter,
  type SyncRecord,
} from "@/lib/engine";
import type { ListSyncRecordsQuery } from "@/lib/validation/sync-records";
import { getSyncRun } from "./runs";

/** The run's row when it is the workspace's and its sync is not deleted: one row or none. */
const scopedRunQuery = (workspaceId: number, syncId: number, syncRunId: number) =>
  sqlBuilder()
    .selectFrom("sync_runs as r")
    .innerJoin("syncs as s", (join) => join.onRef("s.id", "=", "r.sync_id").on("s.workspace_id", "=", workspaceId).on("s.deleted_at", "is", null))
    .select(["r.write_target", "r.record_columns"])
    .where("r.id", "=", syncRunId)
    .where("r.sync_id", "=", syncId)
    .where("r.workspace_id", "=", workspaceId);
type ScopedRunRow = InferResult<ReturnType<typeof scopedRunQuery>>[number];

/** The 404 of a run that is not found: says whether the sync or the run is missing. */
async function missingRun(workspaceId: number, syncId: number, syncRunId: number): Promise<never> {
  await getSyncRun(workspaceId, syncId, syncRunId);
  throw new NotFound(`Sync run ${syncRunId} of sync ${syncId} was not found.`);
}

/** The run, scoped to the workspace and to a sync that is not deleted; 404 naming what is missing. */
async function scopedRun(workspaceId: number, syncId: number, syncRunId: number): Promise<ScopedRunRow> {
  const [run] = await selectRows(scopedRunQuery(workspaceId, syncId, syncRunId));
  return run ?? missingRun(workspaceId, syncId, syncRunId);
}

/**
 * scopedRun and pageHeadsQuery in one statement (a round trip less per page): the heads are read only
 * for a run the scope lets through, and no row at all means the run is not the caller's. Compiled
 * once per shape: a page of records is a hot request.
 */
const scopedPageHeadsQuery = compiledByShape(
  (shape: PageHeadsShape, at: PageHeadsValues & { workspaceId: number; syncId: number }) =>
    sqlBuilder()
      .selectFrom(scopedRunQuery(at.workspaceId, at.syncId, at.runId).as("g"))
      .innerJoinLateral(pageHeadsQuery(shape, at).as("ph"), (join) => join.onTrue())
      .select(["g.write_target", "g.record_columns", "ph.total", "ph.first_id", "ph.size", "ph.matches", "ph.before"])
      .orderBy("ph.first_id"),
  (shape) => JSON.stringify(shape),
);

/** scopedPageHeadsQuery of an unfiltered page, its lines with its heads (pageLinesQuery): one round trip in all. */
const scopedPageLinesQuery = compiledByShape(
  (shape: PageHeadsShape, at: PageHeadsValues & { workspaceId: number; syncId: number }) =>
    sqlBuilder()
      .selectFrom(scopedRunQuery(at.workspaceId, at.syncId, at.runId).as("g"))
      .innerJoinLateral(pageLinesQuery(shape, at).as("pl"), (join) => join.onTrue())
      .select(["g.write_target", "g.record_columns"])
      .selectAll("pl")
      .orderBy("pl.first_id"),
  (shape) => JSON.stringify(shape),
);

async function scopedPageHeads(workspaceId: number, syncId: number, syncRunId: number, shape: PageHeadsShape, values: PageHeadsValues) {
  const rows = await selectRows(scopedPageHeadsQuery(shape, Object.assign(values, { workspaceId, syncId })));
  if (rows.length === 0) return missingRun(workspaceId, syncId, syncRunId);
  return { run: rows[0], page: toPageHeads(rows) };
}

export function recordFilterOf(filter: { status?: RecordFilter["status"]; action?: RecordFilter["action"]; primary_key?: string }): RecordFilter {
  return { status: filter.status, action: filter.action, primaryKey: filter.primary_key };
}

export async function listSyncRecords(workspaceId: number, syncId: number, syncRunId: number, filter: ListSyncRecordsQuery, page: Page) {
  const recordFilter = recordFilterOf(filter);
  // With after_id the cursor replaces the offset; page numbers still work for the links.
  const skip = filter.after_id !== undefined ? 0 : page.skip;
  const options = (run: ScopedRunRow): ExpandOptions => ({ runId: syncRunId, recordColumns: run.record_columns, filter: recordFilter, afterId: filter.after_id });
  let run: ScopedRunRow;
  let read: { rows: SyncRecord[]; total: number };
  if (recordFilter.primaryKey !== undefined) {
    run = await scopedRun(workspaceId, syncId, syncRunId);
    read = await keySearch(options(run), skip, page.take);
  } else {
    const { shape, values } = pageHeadsOf(syncRunId, recordFilter, { skip, take: page.take, afterId: filter.after_id });
    if (shape.allCodes && !shape.afterId) {
      // The common page (no filter): its lines come with the heads and the run, in one statement.
      const rows = await selectRows(scopedPageLinesQuery(shape, Object.assign(values, { workspaceId, syncId })));
      if (rows.length === 0) return missingRun(workspaceId, syncId, syncRunId);
      run = rows[0];
      read = { rows: await pageOfLines(rows, options(run)), total: rows[0].total };
    } else {
      // A page and the run's total: the heads the page needs (with the run), then only its lines.
      const scoped = await scopedPageHeads(workspaceId, syncId, syncRunId, shape, values);
      run = scoped.run;
      read = { rows: await readWindow(scoped.page, options(run), skip, page.take), total: scoped.page.total };
    }
  }
  // The run's write target, for the logs of records that stored none (record-logs.ts).
  return { ...read, writeTarget: parseWriteTarget(run.write_target) };
}

/** A key search: the few blocks that hold the key, read once for both the page and the total. */
async function keySearch(options: ExpandOptions, skip: number, take: number): Promise<{ rows: SyncRecord[]; total: number }> {
  const matching: SyncRecord[] = [];
  for await (const records of readAll(await blockHeads(options.runId, options.filter), { ...options, afterId: undefined })) matching.push(...records);
  const { afterId } = options;
  const rows = afterId !== undefined ? matching.filter((r) => r.id > afterId).slice(0, take) : matching.slice(skip, skip + take);
  return { rows, total: matching.length };
}

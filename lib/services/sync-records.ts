// Records of one sync run, oldest first. Pages follow the (sync_run_id, id) key; status=failed has
// the partial index sync_records_failed, so a page is an index range scan even for runs of millions.
// Successes are most records: they walk the key with a filter. The action filter has no index of its
// own (each would cost every recorded row): it walks the run's records in id order, and its count
// reads them all.
import "server-only";
import { prisma, queryRows } from "@/lib/db/client";
import { ACTIVE_RUN_STATUSES, recordRetentionDays } from "@/lib/engine";
import { storedRecord } from "@/lib/engine/pass-through/record-columns";
import { parseWriteTarget } from "@/lib/engine/record-logs";
import { NotFound } from "@/lib/errors";
import {
  Prisma,
  type SyncRecord,
  type SyncRecordAction,
  type SyncRecordStatus,
  type SyncRun,
  type SyncRunStatus,
} from "@/lib/generated/prisma/client";
import type { Page } from "@/lib/page";
import type { ListSyncRecordsQuery } from "@/lib/validation/sync-records";
import { getSyncRun } from "./sync-runs";

type RunCounters = Pick<SyncRun, "status" | "finishedAt" | "totalRows" | "successfulRows" | "failedRows">;

/** A sync_records row as the record queries select it (snake_case, enums as text). */
export interface RecordRow {
  id: bigint;
  sync_id: number;
  sync_run_id: number;
  primary_key: string;
  record: Prisma.JsonValue | null;
  row_text: string | null;
  status: SyncRecordStatus;
  action: SyncRecordAction;
  error: string | null;
  logs: Prisma.JsonValue | null;
  created_at: Date;
  updated_at: Date;
}

/** The run's counters beside each record of the page; the record columns are NULL on an empty page. */
interface RecordPageRow extends Omit<RecordRow, "id"> {
  run_status: SyncRunStatus;
  run_write_target: Prisma.JsonValue | null;
  run_record_columns: Prisma.JsonValue | null;
  run_finished_at: Date | null;
  run_total_rows: number;
  run_successful_rows: number;
  run_failed_rows: number;
  id: bigint | null;
}

export async function listSyncRecords(workspaceId: number, syncId: number, syncRunId: number, filter: ListSyncRecordsQuery, page: Page) {
  const conditions = [
    Prisma.sql`sync_run_id = r.id`,
    ...(filter.status ? [Prisma.sql`status = ${filter.status}::sync_record_status`] : []),
    ...(filter.action ? [Prisma.sql`action = ${filter.action}::sync_record_action`] : []),
    // No index of its own either (it would cost every row the engine records): a search walks one
    // run's records, through the run's part of the primary key.
    ...(filter.primary_key !== undefined ? [Prisma.sql`primary_key = ${filter.primary_key}`] : []),
    // With after_id the cursor replaces OFFSET; page numbers still work for the links.
    ...(filter.after_id !== undefined ? [Prisma.sql`id > ${filter.after_id}`] : []),
  ];
  // One statement: the run, scoped to the workspace and to a sync that is not deleted, and its page.
  const rows = await queryRows<RecordPageRow>(Prisma.sql`
    SELECT r.status::text AS run_status, r.write_target AS run_write_target, r.record_columns AS run_record_columns, r.finished_at AS run_finished_at, r.total_rows AS run_total_rows,
           r.successful_rows AS run_successful_rows, r.failed_rows AS run_failed_rows,
           rec.id, rec.sync_id, rec.sync_run_id, rec.primary_key, rec.record, rec.row_text, rec.status::text AS status,
           rec.action::text AS action, rec.error, rec.logs, rec.created_at, rec.updated_at
      FROM sync_runs r
      JOIN syncs s ON s.id = r.sync_id AND s.workspace_id = ${workspaceId} AND s.deleted_at IS NULL
      LEFT JOIN LATERAL (
        SELECT * FROM sync_records WHERE ${Prisma.join(conditions, " AND ")}
         ORDER BY id LIMIT ${page.take} OFFSET ${filter.after_id !== undefined ? 0 : page.skip}
      ) rec ON true
     WHERE r.id = ${syncRunId} AND r.sync_id = ${syncId} AND r.workspace_id = ${workspaceId}
     ORDER BY rec.id`);
  if (rows.length === 0) {
    // Says whether the sync or the run is missing.
    await getSyncRun(workspaceId, syncId, syncRunId);
    throw new NotFound(`Sync run ${syncRunId} of sync ${syncId} was not found.`);
  }
  const [first] = rows;
  const run: RunCounters = {
    status: first.run_status,
    finishedAt: first.run_finished_at,
    totalRows: first.run_total_rows,
    successfulRows: first.run_successful_rows,
    failedRows: first.run_failed_rows,
  };
  const records = rows.filter((r): r is RecordPageRow & RecordRow => r.id !== null).map((r) => syncRecord(r, first.run_record_columns));
  const total =
    totalFromCounters(run, filter) ??
    (await prisma().syncRecord.count({
      where: {
        syncRunId,
        ...(filter.status ? { status: filter.status } : {}),
        ...(filter.action ? { action: filter.action } : {}),
        ...(filter.primary_key !== undefined ? { primaryKey: filter.primary_key } : {}),
      },
    }));
  // The run's write target, for the logs of records that stored none (record-logs.ts).
  return { rows: records, total, writeTarget: parseWriteTarget(first.run_write_target) };
}

/** A record kept as its source's COPY line (the pass-through path) is decoded with the run's columns. */
export function syncRecord(r: RecordRow, recordColumns: Prisma.JsonValue | null): SyncRecord {
  return {
    id: r.id,
    syncId: r.sync_id,
    syncRunId: r.sync_run_id,
    primaryKey: r.primary_key,
    record: storedRecord(r.record, r.row_text, recordColumns) as Prisma.JsonValue,
    rowText: null,
    status: r.status,
    action: r.action,
    error: r.error,
    logs: r.logs,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/**
 * A finished run's record count without counting: its records never change until retention prunes
 * them, and the engine commits each batch's records and the run's counters in one transaction, so
 * total_rows / successful_rows / failed_rows are exact. count(*) over a run of a million records
 * cost ~200 ms a page and, at 50 concurrent requests, exhausted the pool (500s; see bench/api.ts).
 * Undefined (count instead) for running runs, action and primary key filters, and runs retention may have pruned.
 */
function totalFromCounters(run: RunCounters, filter: ListSyncRecordsQuery): number | undefined {
  if (filter.action || filter.primary_key !== undefined || !run.finishedAt || ACTIVE_RUN_STATUSES.includes(run.status)) return undefined;
  // Pruning deletes the records of runs finished before now − retention; a day of margin.
  if (run.finishedAt.getTime() < Date.now() - (recordRetentionDays() - 1) * 86_400_000) return undefined;
  if (!filter.status) return run.totalRows;
  if (filter.status === "success") return run.successfulRows;
  if (filter.status === "failed") return run.failedRows;
  return undefined;
}

// One record of a run, opened for debugging: the source row as read, the payload mapped for the
// destination, and what was sent and answered. The engine stores a payload only where a record
// failed (its log's request body, record-logs.ts:failureLog) so successful rows cost nothing more
// on the hot path; for the others the payload is mapped again here, from the stored source row
// with the sync's mapping, and marked as such (the mapping may have changed since the run).
import "server-only";
import type { InferResult } from "kysely";
import { selectRows, sqlBuilder } from "@/lib/db/kysely";
import { parseWriteTarget, readRecord, recordLogs, type RecordLogText, type SyncRecord } from "@/lib/engine";
import { NotFound } from "@/lib/errors";
import { compileMapping, deletePayload, MappingConfigurationError, MappingError } from "@/lib/sync-rules/mapping";
import { recordRedactor } from "./record-redaction";

const detailQuery = (workspaceId: number, syncId: number, syncRunId: number) =>
  sqlBuilder()
    .selectFrom("sync_runs as r")
    .innerJoin("syncs as s", (join) => join.onRef("s.id", "=", "r.sync_id").on("s.workspace_id", "=", workspaceId).on("s.deleted_at", "is", null))
    .innerJoin("models as m", "m.id", "s.model_id")
    .select(["r.write_target as run_write_target", "r.record_columns as run_record_columns", "s.configuration as sync_configuration"])
    .select(["s.source_id", "s.destination_id", "m.primary_key as model_primary_key"])
    .where("r.id", "=", syncRunId)
    .where("r.sync_id", "=", syncId)
    .where("r.workspace_id", "=", workspaceId);
type DetailRow = InferResult<ReturnType<typeof detailQuery>>[number];

export type PayloadSource = "sent" | "mapped_now";

export interface SyncRecordDetail {
  record: SyncRecord;
  logs: RecordLogText;
  payload: unknown;
  payloadSource: PayloadSource;
  payloadError: string | null;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

export async function getSyncRecord(workspaceId: number, syncId: number, syncRunId: number, id: bigint): Promise<SyncRecordDetail> {
  // Scoped like the list: the run in the workspace, of a sync not deleted.
  const [row] = await selectRows(detailQuery(workspaceId, syncId, syncRunId));
  const record = row && (await readRecord(syncRunId, row.run_record_columns, id));
  if (!row || !record) throw new NotFound(`Record ${id} of run ${syncRunId} of sync ${syncId} was not found.`);
  const redactText = await recordRedactor([row.source_id, row.destination_id]);
  const shown = recordLogs(record, parseWriteTarget(row.run_write_target));
  const logs: RecordLogText = { request: redactText(shown.request), response: redactText(shown.response), level: shown.level };
  return {
    record: { ...record, error: record.error === null ? null : redactText(record.error) },
    logs,
    ...payloadOf(row, record),
  };
}

/** The payload sent, when the record's log kept it (failures), else the row mapped again now. */
function payloadOf(row: DetailRow, record: SyncRecord): Pick<SyncRecordDetail, "payload" | "payloadSource" | "payloadError"> {
  const logged = isObject(record.logs) && isObject(record.logs.request) ? record.logs.request.body : undefined;
  if (record.status === "failed" && isObject(logged)) return { payload: logged, payloadSource: "sent", payloadError: null };
  try {
    const mapping = compileMapping(row.sync_configuration);
    const payload =
      record.action === "destination_delete"
        ? deletePayload(mapping, row.model_primary_key ?? "id", record.primaryKey)
        : mapping.map(isObject(record.record) ? record.record : {}, record.createdAt);
    return { payload, payloadSource: "mapped_now", payloadError: null };
  } catch (err) {
    if (err instanceof MappingError || err instanceof MappingConfigurationError) {
      return { payload: null, payloadSource: "mapped_now", payloadError: err.message };
    }
    throw err;
  }
}

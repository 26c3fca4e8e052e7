// One record of a run, opened for debugging: the source row as read, the payload mapped for the
// destination, and what was sent and answered. The engine stores a payload only where a record
// failed (its log's request body, record-logs.ts:failureLog) so successful rows cost nothing more
// on the hot path; for the others the payload is mapped again here, from the stored source row
// with the sync's mapping, and marked as such (the mapping may have changed since the run).
import "server-only";
import { queryRows } from "@/lib/db/client";
import { parseWriteTarget, recordLogs, type RecordLogText } from "@/lib/engine/record-logs";
import { NotFound } from "@/lib/errors";
import { Prisma, type SyncRecord } from "@/lib/generated/prisma/client";
import { compileMapping, deletePayload, MappingConfigurationError, MappingError } from "@/lib/sync-config/mapping";
import { recordRedactor } from "./record-redaction";
import { syncRecord, type RecordRow } from "./sync-records";

interface DetailRow extends RecordRow {
  run_write_target: Prisma.JsonValue | null;
  run_record_columns: Prisma.JsonValue | null;
  sync_configuration: Prisma.JsonValue;
  source_id: number;
  destination_id: number;
  model_primary_key: string | null;
}

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
  // One statement, scoped like the list: the run in the workspace, of a sync not deleted.
  const [row] = await queryRows<DetailRow>(Prisma.sql`
    SELECT rec.id, rec.sync_id, rec.sync_run_id, rec.primary_key, rec.record, rec.row_text, rec.status::text AS status,
           rec.action::text AS action, rec.error, rec.logs, rec.created_at, rec.updated_at,
           r.write_target AS run_write_target, r.record_columns AS run_record_columns, s.configuration AS sync_configuration,
           s.source_id, s.destination_id, m.primary_key AS model_primary_key
      FROM sync_runs r
      JOIN syncs s ON s.id = r.sync_id AND s.workspace_id = ${workspaceId} AND s.deleted_at IS NULL
      JOIN models m ON m.id = s.model_id
      JOIN sync_records rec ON rec.sync_run_id = r.id AND rec.id = ${id}
     WHERE r.id = ${syncRunId} AND r.sync_id = ${syncId} AND r.workspace_id = ${workspaceId}`);
  if (!row) throw new NotFound(`Record ${id} of run ${syncRunId} of sync ${syncId} was not found.`);
  const record = syncRecord(row, row.run_record_columns);
  const redactText = await recordRedactor([row.source_id, row.destination_id]);
  const shown = recordLogs(record, parseWriteTarget(row.run_write_target));
  const logs: RecordLogText = { request: redactText(shown.request), response: redactText(shown.response), level: shown.level };
  return {
    record: { ...record, error: record.error === null ? null : redactText(record.error) },
    logs,
    ...payloadOf(row, record.record),
  };
}

/** The payload sent, when the record's log kept it (failures), else the row mapped again now. */
function payloadOf(row: DetailRow, record: unknown): Pick<SyncRecordDetail, "payload" | "payloadSource" | "payloadError"> {
  const logged = isObject(row.logs) && isObject(row.logs.request) ? row.logs.request.body : undefined;
  if (row.status === "failed" && isObject(logged)) return { payload: logged, payloadSource: "sent", payloadError: null };
  try {
    const mapping = compileMapping(row.sync_configuration);
    const payload =
      row.action === "destination_delete"
        ? deletePayload(mapping, row.model_primary_key ?? "id", row.primary_key)
        : mapping.map(isObject(record) ? record : {}, row.created_at);
    return { payload, payloadSource: "mapped_now", payloadError: null };
  } catch (err) {
    if (err instanceof MappingError || err instanceof MappingConfigurationError) {
      return { payload: null, payloadSource: "mapped_now", payloadError: err.message };
    }
    throw err;
  }
}

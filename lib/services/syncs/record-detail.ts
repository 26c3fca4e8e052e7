// One record of a run, opened for debugging: the source row as read, the payload mapped for the
// destination, and what was sent and answered. The engine stores a payload only where a record
// failed (its log's request body, record-logs.ts:failureLog) so successful rows cost nothing more
// on the hot path; for the others the payload is mapped again here, from the stored source row
// with the sync's mapping, and marked as such (the mapping may have changed since the run).
import "server-only";
import { queryRows } from "@/lib/db/client";
import { parseWriteTarget, readRecord, recordLogs, type RecordLogText, type SyncRecord } from "@/lib/engine";
import { NotFound } from "@/lib/errors";
import { Prisma } from "@/lib/generated/prisma/client";
import { compileMapping, deletePayload, MappingConfigurationError, MappingError } from "@/lib/sync-rules/mapping";
import { recordRedactor } from "./record-redaction";

interface DetailRow {
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
  // Scoped like the list: the run in the workspace, of a sync not deleted.
  const [row] = await queryRows<DetailRow>(Prisma.sql`
    SELECT r.write_target AS run_write_target, r.record_columns AS run_record_columns, s.configuration AS sync_configuration,
           s.source_id, s.destination_id, m.primary_key AS model_primary_key
      FROM sync_runs r
      JOIN syncs s ON s.id = r.sync_id AND s.workspace_id = ${workspaceId} AND s.deleted_at IS NULL
      JOIN models m ON m.id = s.model_id
     WHERE r.id = ${syncRunId} AND r.sync_id = ${syncId} AND r.workspace_id = ${workspaceId}`);
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

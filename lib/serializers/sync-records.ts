// Sync record resources; the id is a BigInt column, returned as a string like every id. Every record
// has logs {request, response, level} (text, as the reference's console prints them): the stored
// log, or for a row a SQL destination accepted, one derived from the record and the run's write
// target (lib/engine/record-logs.ts), which states only what those establish.
import { recordLogs, type SyncRecord, type WriteTarget } from "@/lib/engine";
import { parseStored } from "@/lib/validation/stored";
import { iso, resource } from "./resource";
import type { SyncRecordDetail } from "@/lib/services/syncs/record-detail";
import { syncRecordAttributesSchema, type SyncRecordAttributes, type SyncRecordDetailAttributes, type SyncRecordDetailResource, type SyncRecordResource } from "./sync-records.schema";

const storedRecordSchema = syncRecordAttributesSchema.shape.record;

export const serializeSyncRecord = (r: SyncRecord, writeTarget: WriteTarget | null = null): SyncRecordResource =>
  resource(r.id, "sync_records", {
    sync_id: r.syncId,
    sync_run_id: r.syncRunId,
    record: parseStored(storedRecordSchema, r.record, `record ${r.id}`),
    status: r.status,
    action: r.action,
    error: r.error,
    logs: recordLogs(r, writeTarget),
    primary_key: r.primaryKey,
    created_at: iso(r.createdAt),
    updated_at: iso(r.updatedAt),
  } satisfies SyncRecordAttributes);

/** One record opened on its own (lib/services/syncs/record-detail.ts). */
export const serializeSyncRecordDetail = (d: SyncRecordDetail): SyncRecordDetailResource =>
  resource(d.record.id, "sync_records", {
    ...serializeSyncRecord(d.record).attributes,
    logs: d.logs,
    payload: d.payload,
    payload_source: d.payloadSource,
    payload_error: d.payloadError,
  } satisfies SyncRecordDetailAttributes);

// Sync record resources; the id is a BigInt column, returned as a string like every id.
import type { SyncRecord } from "@/lib/generated/prisma/client";
import { iso, resource } from "./resource";

export const serializeSyncRecord = (r: SyncRecord) =>
  resource(r.id, "sync_records", {
    sync_id: r.syncId,
    sync_run_id: r.syncRunId,
    record: r.record,
    status: r.status,
    action: r.action,
    error: r.error,
    logs: r.logs,
    primary_key: r.primaryKey,
    created_at: iso(r.createdAt),
    updated_at: iso(r.updatedAt),
  });

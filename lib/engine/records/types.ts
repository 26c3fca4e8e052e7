// A sync record as the services and serializers see it, one per record of a block (format.ts).
import type { RecordLog } from "@/lib/connectors/types";
import type { SyncRecordAction, SyncRecordStatus } from "@/lib/generated/prisma/enums";

export interface SyncRecord {
  id: bigint;
  syncId: number;
  syncRunId: number;
  primaryKey: string;
  /** The source row as the JSON path reads it; null for a delete, or a text line that no longer decodes. */
  record: unknown;
  status: SyncRecordStatus;
  action: SyncRecordAction;
  error: string | null;
  /** The stored log (failures, HTTP answers); null when it is derived on read (record-logs.ts). */
  logs: RecordLog | null;
  createdAt: Date;
  updatedAt: Date;
}

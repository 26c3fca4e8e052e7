// Request shapes of the sync record endpoint.
import { z } from "zod";
import { idParam, queryBigIntId } from "./ids";
import { SyncRecordAction, SyncRecordStatus } from "@/lib/generated/prisma/enums";

export const SYNC_RECORD_STATUSES: readonly SyncRecordStatus[] = Object.values(SyncRecordStatus);
export const SYNC_RECORD_ACTIONS: readonly SyncRecordAction[] = Object.values(SyncRecordAction);

// Folders syncs/[id]/sync_runs/[run_id]; the API names them sync_id and sync_run_id (renamed first,
// so a problem names the parameter the caller knows).
type Folders = { id?: string; run_id?: string };
export const syncRecordsParamsSchema = z.preprocess(
  (p) => ({ sync_id: (p as Folders).id, sync_run_id: (p as Folders).run_id }),
  z.object({ sync_id: idParam, sync_run_id: idParam }),
);

/** One record of a run: the list's folders plus [record_id]. */
export const syncRecordParamsSchema = z.preprocess(
  (p) => ({ sync_id: (p as Folders & { record_id?: string }).id, sync_run_id: (p as Folders).run_id, id: (p as { record_id?: string }).record_id }),
  z.object({ sync_id: idParam, sync_run_id: idParam, id: queryBigIntId("must be a record id (digits)") }),
);

const primaryKeyFilter = z
  .string()
  .trim()
  .min(1, { error: "must not be empty (leave it out to list every record)" })
  .max(1000, { error: "must be at most 1000 characters" })
  .optional()
  .describe("Only the record(s) of the row with this primary key value (exact match, as text).");

const statusFilter = z
  .enum(SYNC_RECORD_STATUSES, { error: `must be one of: ${SYNC_RECORD_STATUSES.join(", ")}` })
  .optional()
  .describe("Only records with this outcome.");
const actionFilter = z
  .enum(SYNC_RECORD_ACTIONS, { error: `must be one of: ${SYNC_RECORD_ACTIONS.join(", ")}` })
  .optional()
  .describe("Only records of this action.");

/** The filters the export applies, the same as the list's. */
export const exportSyncRecordsQuerySchema = z.object({ status: statusFilter, action: actionFilter, primary_key: primaryKeyFilter });
export type ExportSyncRecordsQuery = z.infer<typeof exportSyncRecordsQuerySchema>;

export const listSyncRecordsQuerySchema = z.object({
  primary_key: primaryKeyFilter,
  status: statusFilter,
  action: actionFilter,
  after_id: queryBigIntId()
    .optional()
    .describe("Keyset paging: only records with a larger id (use the last id of the previous page)."),
});
export type ListSyncRecordsQuery = z.infer<typeof listSyncRecordsQuerySchema>;

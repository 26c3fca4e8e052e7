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

export const listSyncRecordsQuerySchema = z.object({
  status: z
    .enum(SYNC_RECORD_STATUSES, { error: `must be one of: ${SYNC_RECORD_STATUSES.join(", ")}` })
    .optional()
    .describe("Only records with this outcome."),
  action: z
    .enum(SYNC_RECORD_ACTIONS, { error: `must be one of: ${SYNC_RECORD_ACTIONS.join(", ")}` })
    .optional()
    .describe("Only records of this action."),
  after_id: queryBigIntId()
    .optional()
    .describe("Keyset paging: only records with a larger id (use the last id of the previous page)."),
});
export type ListSyncRecordsQuery = z.infer<typeof listSyncRecordsQuerySchema>;

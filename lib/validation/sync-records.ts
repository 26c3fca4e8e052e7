// Request shapes of the sync record endpoint.
import { z } from "zod";
import { idParam } from "@/lib/http/handler";
import { queryBigIntId } from "./ids";

export const SYNC_RECORD_STATUSES = ["pending", "success", "failed"] as const;
export const SYNC_RECORD_ACTIONS = ["destination_insert", "destination_update", "destination_delete"] as const;

export const syncRecordsParamsSchema = z
  .object({ id: idParam, run_id: idParam })
  .transform((p) => ({ sync_id: p.id, sync_run_id: p.run_id }));

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

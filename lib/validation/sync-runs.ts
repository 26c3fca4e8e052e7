// Request shapes of the sync run endpoints.
import { z } from "zod";
import { idParam } from "@/lib/http/handler";

export const SYNC_RUN_STATUSES = ["pending", "started", "querying", "queued", "in_progress", "success", "paused", "failed", "canceled"] as const;
export const SYNC_RUN_TYPES = ["general", "test"] as const;

// The folders are syncs/[id]/sync_runs/[run_id] (Next needs one name per level); the API names them sync_id and id.
export const syncRunsParamsSchema = z.object({ id: idParam }).transform((p) => ({ sync_id: p.id }));
export const syncRunParamsSchema = z.object({ id: idParam, run_id: idParam }).transform((p) => ({ sync_id: p.id, id: p.run_id }));

export const listSyncRunsQuerySchema = z.object({
  status: z.enum(SYNC_RUN_STATUSES, { error: `must be one of: ${SYNC_RUN_STATUSES.join(", ")}` }).optional().describe("Only runs in this status."),
  sync_run_type: z.enum(SYNC_RUN_TYPES, { error: `must be one of: ${SYNC_RUN_TYPES.join(", ")}` }).optional().describe("general or test runs."),
});
export type ListSyncRunsQuery = z.infer<typeof listSyncRunsQuerySchema>;

// Request shapes of the sync run endpoints.
import { z } from "zod";
import { idParam } from "./ids";
import { SyncRunStatus, SyncRunType } from "@/lib/generated/prisma/enums";

export const SYNC_RUN_STATUSES: readonly SyncRunStatus[] = Object.values(SyncRunStatus);
export const SYNC_RUN_TYPES: readonly SyncRunType[] = Object.values(SyncRunType);

// The folders are syncs/[id]/sync_runs/[run_id] (Next needs one name per level); the API names them
// sync_id and id. Renamed before checking, so a problem names the parameter the caller knows.
type Folders = { id?: string; run_id?: string };
export const syncRunsParamsSchema = z.preprocess((p) => ({ sync_id: (p as Folders).id }), z.object({ sync_id: idParam }));
export const syncRunParamsSchema = z.preprocess(
  (p) => ({ sync_id: (p as Folders).id, id: (p as Folders).run_id }),
  z.object({ sync_id: idParam, id: idParam }),
);

export const listSyncRunsQuerySchema = z.object({
  status: z.enum(SYNC_RUN_STATUSES, { error: `must be one of: ${SYNC_RUN_STATUSES.join(", ")}` }).optional().describe("Only runs in this status."),
  sync_run_type: z.enum(SYNC_RUN_TYPES, { error: `must be one of: ${SYNC_RUN_TYPES.join(", ")}` }).optional().describe("general or test runs."),
});
export type ListSyncRunsQuery = z.infer<typeof listSyncRunsQuerySchema>;

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

/** POST …/sync_runs/{id}/approve: which plan the person saw (the run's plan.planned_at). */
export const approveSyncRunSchema = z
  .strictObject({
    planned_at: z
      .string({ error: "must be the planned_at of the run's plan, as shown" })
      .max(64, "must be the planned_at of the run's plan, as shown")
      .optional()
      .describe("The run's plan.planned_at as shown to the approver: a run held again since, with another plan, is then a 409 instead of approved unseen."),
  })
  .optional()
  .describe("Optional: leave the body out to approve the plan the run holds now.");
export type ApproveSyncRunInput = NonNullable<z.infer<typeof approveSyncRunSchema>>;

export const listSyncRunsQuerySchema = z.object({
  status: z.enum(SYNC_RUN_STATUSES, { error: `must be one of: ${SYNC_RUN_STATUSES.join(", ")}` }).optional().describe("Only runs in this status."),
  sync_run_type: z.enum(SYNC_RUN_TYPES, { error: `must be one of: ${SYNC_RUN_TYPES.join(", ")}` }).optional().describe("general or test runs."),
});
export type ListSyncRunsQuery = z.infer<typeof listSyncRunsQuerySchema>;

/** The longest a caller may hold a GET open waiting for a run to end (seconds). */
export const MAX_RUN_WAIT_SECONDS = 60;
const WAIT_ERROR = `must be a whole number of seconds from 0 to ${MAX_RUN_WAIT_SECONDS}`;
/** The `wait` query parameter of a long-poll; `settles` says when the answer comes early. */
export const waitQueryParam = (settles: string) =>
  z
    // Digits only: a coerced number would take "" as 0 and "1e1" as 10.
    .string()
    .regex(/^\d{1,3}$/, { error: WAIT_ERROR })
    .transform(Number)
    .pipe(z.number().max(MAX_RUN_WAIT_SECONDS, { error: WAIT_ERROR }))
    .optional()
    .describe(`Long-poll: answer as soon as ${settles}, or after this many seconds (at most ${MAX_RUN_WAIT_SECONDS}).`);
export const getSyncRunQuerySchema = z.object({
  wait: waitQueryParam("the run reaches success, failed, canceled or needs_approval"),
});
export type GetSyncRunQuery = z.infer<typeof getSyncRunQuerySchema>;

/** GET /api/v1/sync_runs/{id}: a run of the workspace by id alone. */
export const workspaceSyncRunParamsSchema = z.object({ id: idParam });

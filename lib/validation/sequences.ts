// Request shapes of "run after" lists and sequence runs (docs/orchestration.md).
import { z } from "zod";
import { idParam, intId } from "./ids";
import { waitQueryParam } from "./sync-runs";

/** The most upstream syncs one sync may run after. */
export const MAX_RUN_AFTER = 50;

/** PUT /api/v1/syncs/{id}/run_after: the whole list (an empty one clears it). */
export const setRunAfterSchema = z.object({
  run_after: z.object(
    {
      sync_ids: z
        .array(intId("A sync of this workspace that must succeed before this one runs."), { error: "is required: a list of sync ids (empty to clear)" })
        .max(MAX_RUN_AFTER, { error: `may list at most ${MAX_RUN_AFTER} syncs` })
        .describe("The syncs this one runs after; replaces the list. Duplicates are ignored."),
    },
    { error: "is required: send {run_after: {sync_ids: [...]}}" },
  ),
});
export type SetRunAfterInput = z.infer<typeof setRunAfterSchema>;

/** Path of /syncs/{id}/run_after and /syncs/{id}/sequence_runs, and of /sequence_runs/{id}. */
export const byIdParamsSchema = z.object({ id: idParam });

export const getSequenceRunQuerySchema = z.object({
  wait: waitQueryParam("the sequence run reaches success, failed or needs_approval"),
});
export type GetSequenceRunQuery = z.infer<typeof getSequenceRunQuerySchema>;

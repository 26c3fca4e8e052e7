// GET /syncs/{sync_id}/sync_runs/{id}/undelivered: how many of a run's failed records are still undelivered.
import { z } from "zod";

export const undeliveredRowsSchema = z
  .strictObject({
    data: z.strictObject({
      sync_run_id: z.number().int(),
      failed_rows: z.number().int().min(0).describe("The run's failed records (its failed_rows)."),
      undelivered_rows: z
        .number()
        .int()
        .min(0)
        .nullable()
        .describe(
          "Of them, those still undelivered now: a new run (Run now) sends them again. They no longer count once a later run delivered them, or their row left the model. null for a test run: it tracks nothing, so no run re-sends its rows.",
        ),
    }),
  })
  .meta({ id: "SyncRunUndelivered" });
export type UndeliveredRowsBody = z.infer<typeof undeliveredRowsSchema>;

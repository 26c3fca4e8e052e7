// The answer of GET /api/v1/reports, as lib/services/reports.ts (workspaceActivity) builds it.
import { z } from "zod";

const series = z.array(
  z.strictObject({
    time_slice: z.string().describe("Start of the UTC hour (one_day) or day (one_week)."),
    total_count: z.number(),
    success_count: z.number(),
    failed_count: z.number(),
  }),
);

export const reportSchema = z.strictObject({
  data: z
    .strictObject({ sync_run_triggered: series.optional(), total_sync_run_rows: series.optional() })
    .describe("One point per bucket, empty buckets included; the series asked for by metric."),
});

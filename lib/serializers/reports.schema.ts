// The answer of GET /api/v1/reports, as lib/services/insights/reports.ts (workspaceActivity) builds it.
import { z } from "zod";

const series = z.array(
  z.strictObject({
    time_slice: z.string().describe("Start of the UTC hour (one_day) or day (one_week)."),
    total_count: z.number().describe("sync_run_triggered: runs created (of any kind); total_sync_run_rows: their total_rows."),
    success_count: z.number().describe("sync_run_triggered: general runs that succeeded (also with rejected rows); total_sync_run_rows: rows delivered."),
    failed_count: z
      .number()
      .describe("sync_run_triggered: general runs that failed (a cancel or a test run never counts); total_sync_run_rows: rows general runs could not deliver."),
  }),
);

export const reportSchema = z.strictObject({
  data: z
    .strictObject({ sync_run_triggered: series.optional(), total_sync_run_rows: series.optional() })
    .describe("One point per bucket, empty buckets included; the series asked for by metric."),
});

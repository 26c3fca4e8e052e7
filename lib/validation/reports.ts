// Query shape of GET /api/v1/reports (the dashboard charts).
import { z } from "zod";
import { queryIntId } from "./ids";

export const REPORT_TYPES = ["workspace_activity"] as const;
export const REPORT_METRICS = ["sync_run_triggered", "total_sync_run_rows", "all"] as const;
export const REPORT_TIME_PERIODS = ["one_day", "one_week"] as const;

const connectorId = queryIntId("a connector id");

export const reportQuerySchema = z.object({
  type: z
    .enum(REPORT_TYPES, { error: `must be one of: ${REPORT_TYPES.join(", ")}` })
    .describe("The report; only workspace_activity exists."),
  metric: z
    .enum(REPORT_METRICS, { error: `must be one of: ${REPORT_METRICS.join(", ")}` })
    .default("all")
    .describe("Which series to compute; default all."),
  time_period: z
    .enum(REPORT_TIME_PERIODS, { error: `must be one of: ${REPORT_TIME_PERIODS.join(", ")}` })
    .default("one_week")
    .describe("one_day: 24 hourly buckets; one_week: 7 daily buckets (UTC). Default one_week."),
  connector_ids: z
    .union([
      connectorId.transform((n) => [n]),
      z.array(connectorId).max(100, "must list at most 100 connectors"),
    ])
    .optional()
    .describe(
      "Only runs of syncs whose source or destination is one of these connectors (connector_ids[]=1&connector_ids[]=2).",
    ),
});
export type ReportQuery = z.infer<typeof reportQuerySchema>;

// Dashboard reports: sync runs and rows of the workspace over time, in UTC buckets (24 hourly for
// one_day, 7 daily for one_week). Each series is one GROUP BY date_trunc query; empty buckets are
// filled from generate_series so a chart always gets every slot.
//   sync_run_triggered:  runs created per bucket; success/failed = runs that ended so.
//   total_sync_run_rows: rows per bucket = sum(total_rows); success/failed = sum of those counters.
import "server-only";
import { prisma } from "@/lib/db/client";
import { Prisma } from "@/lib/generated/prisma/client";
import type { ReportQuery } from "@/lib/validation/reports";

export interface ReportPoint {
  time_slice: string;
  total_count: number;
  success_count: number;
  failed_count: number;
}
export type WorkspaceActivity = Partial<Record<"sync_run_triggered" | "total_sync_run_rows", ReportPoint[]>>;

const PERIODS = {
  one_day: { unit: "hour", step: "1 hour", buckets: 24 },
  one_week: { unit: "day", step: "1 day", buckets: 7 },
} as const;

const SERIES = {
  sync_run_triggered: Prisma.sql`COUNT(*) AS total_count,
    COUNT(*) FILTER (WHERE r.status = 'success') AS success_count,
    COUNT(*) FILTER (WHERE r.status = 'failed') AS failed_count`,
  total_sync_run_rows: Prisma.sql`SUM(r.total_rows) AS total_count,
    SUM(r.successful_rows) AS success_count,
    SUM(r.failed_rows) AS failed_count`,
} as const;

async function series(
  workspaceId: number,
  metric: keyof typeof SERIES,
  period: (typeof PERIODS)[keyof typeof PERIODS],
  connectorIds: number[] | undefined,
  now: Date,
): Promise<ReportPoint[]> {
  const connectorFilter = connectorIds?.length
    ? Prisma.sql`AND EXISTS (SELECT 1 FROM syncs s WHERE s.id = r.sync_id AND s.workspace_id = ${workspaceId}
                   AND (s.source_id = ANY(${connectorIds}::int[]) OR s.destination_id = ANY(${connectorIds}::int[])))`
    : Prisma.empty;
  const rows = await prisma().$queryRaw<
    {
      time_slice: Date;
      total_count: bigint | null;
      success_count: bigint | null;
      failed_count: bigint | null;
    }[]
  >`
    WITH buckets AS (
      SELECT generate_series(
               date_trunc(${period.unit}, ${now}::timestamptz, 'UTC') - (${period.buckets - 1} * ${period.step}::interval),
               date_trunc(${period.unit}, ${now}::timestamptz, 'UTC'),
               ${period.step}::interval) AS time_slice
    ), counts AS (
      SELECT date_trunc(${period.unit}, r.created_at, 'UTC') AS time_slice, ${SERIES[metric]}
        FROM sync_runs r
       WHERE r.workspace_id = ${workspaceId}
         AND r.created_at >= (SELECT MIN(time_slice) FROM buckets)
         ${connectorFilter}
       GROUP BY 1
    )
    SELECT b.time_slice, c.total_count, c.success_count, c.failed_count
      FROM buckets b LEFT JOIN counts c ON c.time_slice = b.time_slice
     ORDER BY b.time_slice`;
  return rows.map((row) => ({
    time_slice: row.time_slice.toISOString(),
    total_count: Number(row.total_count ?? 0),
    success_count: Number(row.success_count ?? 0),
    failed_count: Number(row.failed_count ?? 0),
  }));
}

export async function workspaceActivity(
  workspaceId: number,
  query: ReportQuery,
  now = new Date(),
): Promise<WorkspaceActivity> {
  const period = PERIODS[query.time_period];
  const metrics =
    query.metric === "all" ? (["sync_run_triggered", "total_sync_run_rows"] as const) : [query.metric];
  const out: WorkspaceActivity = {};
  for (const metric of metrics)
    out[metric] = await series(workspaceId, metric, period, query.connector_ids, now);
  return out;
}

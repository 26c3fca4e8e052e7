// Dashboard reports: sync runs and rows of the workspace over time, in UTC buckets (24 hourly for
// one_day, 7 daily for one_week). Empty buckets are filled from generate_series so a chart always
// gets every slot. What counts as a success or a failure is the runs' outcome (runTruth in
// lib/sync-rules/run-outcome.ts, the words every view shows): the query groups each bucket's runs
// by the facts the outcome reads, and each group is judged by that one function.
//   sync_run_triggered:  runs created per bucket; success = general runs that succeeded (with or
//                        without rejected rows), failed = general runs that failed. A cancel and a
//                        test run are never a failure (nor a success): only in total_count.
//   total_sync_run_rows: rows per bucket = sum(total_rows); success = sum(successful_rows);
//                        failed = sum(failed_rows) of general runs (a test's refused row is no failure).
import "server-only";
import { prisma } from "@/lib/db/client";
import { Prisma } from "@/lib/generated/prisma/client";
import { runTruth, STOPPED_ERRORS } from "@/lib/sync-rules/run-outcome";
import type { ReportQuery } from "@/lib/validation/reports";

export interface ReportPoint {
  time_slice: string;
  total_count: number;
  success_count: number;
  failed_count: number;
}
export type Metric = "sync_run_triggered" | "total_sync_run_rows";
export type WorkspaceActivity = Partial<Record<Metric, ReportPoint[]>>;

const PERIODS = {
  one_day: { unit: "hour", step: "1 hour", buckets: 24 },
  one_week: { unit: "day", step: "1 day", buckets: 7 },
} as const;

/** One bucket's runs that share every fact their outcome is derived from, with their sums. */
interface RunGroup {
  time_slice: Date;
  status: string | null;
  sync_run_type: string | null;
  canceled: boolean | null;
  stopped_error: string | null;
  rejected: boolean | null;
  runs: bigint | null;
  total_rows: bigint | null;
  successful_rows: bigint | null;
  failed_rows: bigint | null;
}

async function runGroups(
  workspaceId: number,
  period: (typeof PERIODS)[keyof typeof PERIODS],
  connectorIds: number[] | undefined,
  now: Date,
): Promise<RunGroup[]> {
  const connectorFilter = connectorIds?.length
    ? Prisma.sql`AND EXISTS (SELECT 1 FROM syncs s WHERE s.id = r.sync_id AND s.workspace_id = ${workspaceId}
                   AND (s.source_id = ANY(${connectorIds}::int[]) OR s.destination_id = ANY(${connectorIds}::int[])))`
    : Prisma.empty;
  // A handful of groups per bucket: status x type x canceled x stopped error x rejected.
  return prisma().$queryRaw<RunGroup[]>`
    WITH buckets AS (
      SELECT generate_series(
               date_trunc(${period.unit}, ${now}::timestamptz, 'UTC') - (${period.buckets - 1} * ${period.step}::interval),
               date_trunc(${period.unit}, ${now}::timestamptz, 'UTC'),
               ${period.step}::interval) AS time_slice
    ), groups AS (
      SELECT date_trunc(${period.unit}, r.created_at, 'UTC') AS time_slice, r.status::text AS status,
             r.sync_run_type::text AS sync_run_type, r.canceled_by IS NOT NULL AS canceled,
             CASE WHEN r.error = ANY(${STOPPED_ERRORS as string[]}::text[]) THEN r.error END AS stopped_error,
             r.failed_rows > 0 AS rejected,
             COUNT(*) AS runs, SUM(r.total_rows) AS total_rows, SUM(r.successful_rows) AS successful_rows, SUM(r.failed_rows) AS failed_rows
        FROM sync_runs r
       WHERE r.workspace_id = ${workspaceId}
         AND r.created_at >= (SELECT MIN(time_slice) FROM buckets)
         ${connectorFilter}
       GROUP BY 1, 2, 3, 4, 5, 6
    )
    SELECT b.time_slice, g.status, g.sync_run_type, g.canceled, g.stopped_error, g.rejected,
           g.runs, g.total_rows, g.successful_rows, g.failed_rows
      FROM buckets b LEFT JOIN groups g ON g.time_slice = b.time_slice
     ORDER BY b.time_slice`;
}

/** A group's share of its bucket's point in `metric`, its outcome judged by runTruth. */
function contribution(g: RunGroup, metric: Metric): Omit<ReportPoint, "time_slice"> {
  if (g.status === null) return { total_count: 0, success_count: 0, failed_count: 0 };
  const truth = runTruth({
    status: g.status,
    sync_run_type: g.sync_run_type ?? undefined,
    failed_rows: g.rejected ? 1 : 0,
    error: g.stopped_error,
    canceled_by: g.canceled ? "someone" : null,
  });
  const test = g.sync_run_type === "test";
  const succeeded = !test && (truth.outcome === "succeeded" || truth.outcome === "succeeded_with_rejections");
  if (metric === "sync_run_triggered") {
    const runs = Number(g.runs ?? 0);
    return { total_count: runs, success_count: succeeded ? runs : 0, failed_count: truth.failure ? runs : 0 };
  }
  return {
    total_count: Number(g.total_rows ?? 0),
    success_count: Number(g.successful_rows ?? 0),
    failed_count: test ? 0 : Number(g.failed_rows ?? 0),
  };
}

function series(groups: RunGroup[], metric: Metric): ReportPoint[] {
  const points = new Map<string, ReportPoint>();
  for (const g of groups) {
    const time_slice = g.time_slice.toISOString();
    const point = points.get(time_slice) ?? { time_slice, total_count: 0, success_count: 0, failed_count: 0 };
    const add = contribution(g, metric);
    point.total_count += add.total_count;
    point.success_count += add.success_count;
    point.failed_count += add.failed_count;
    points.set(time_slice, point);
  }
  return [...points.values()];
}

export async function workspaceActivity(
  workspaceId: number,
  query: ReportQuery,
  now = new Date(),
): Promise<WorkspaceActivity> {
  const metrics: Metric[] = query.metric === "all" ? ["sync_run_triggered", "total_sync_run_rows"] : [query.metric];
  const groups = await runGroups(workspaceId, PERIODS[query.time_period], query.connector_ids, now);
  const out: WorkspaceActivity = {};
  for (const metric of metrics) out[metric] = series(groups, metric);
  return out;
}

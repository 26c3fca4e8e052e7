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
import { sql, type RawBuilder } from "kysely";
import { anyOf, db } from "@/lib/db/kysely";
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

async function runGroups(
  workspaceId: number,
  period: (typeof PERIODS)[keyof typeof PERIODS],
  connectorIds: number[] | undefined,
  now: Date,
) {
  const { unit, step, buckets } = period;
  const trunc = (at: RawBuilder<Date> | string) => sql<Date>`date_trunc(${unit}, ${typeof at === "string" ? sql.ref(at) : at}, 'UTC')`;
  const last = trunc(sql<Date>`${now}::timestamptz`);
  // A handful of groups per bucket: status x type x canceled x stopped error x rejected.
  return db()
    .with("buckets", (q) =>
      q.selectNoFrom(sql<Date>`generate_series(${last} - (${buckets - 1} * ${step}::interval), ${last}, ${step}::interval)`.as("time_slice")),
    )
    .with("groups", (q) =>
      q
        .selectFrom("sync_runs as r")
        .select((eb) => [
          trunc("r.created_at").as("time_slice"),
          sql<string>`r.status::text`.as("status"),
          sql<string>`r.sync_run_type::text`.as("sync_run_type"),
          eb("r.canceled_by", "is not", null).$castTo<boolean>().as("canceled"),
          eb.case().when("r.error", "=", anyOf(STOPPED_ERRORS, "text")).then(eb.ref("r.error")).end().as("stopped_error"),
          eb("r.failed_rows", ">", 0).$castTo<boolean>().as("rejected"),
          eb.fn.countAll<bigint>().as("runs"),
          eb.fn.sum<bigint>("r.total_rows").as("total_rows"),
          eb.fn.sum<bigint>("r.successful_rows").as("successful_rows"),
          eb.fn.sum<bigint>("r.failed_rows").as("failed_rows"),
        ])
        .where("r.workspace_id", "=", workspaceId)
        .where("r.created_at", ">=", (eb) => eb.selectFrom("buckets").select((b) => b.fn.min("time_slice").as("first")))
        .$if(Boolean(connectorIds?.length), (q) =>
          q.where(({ exists, selectFrom }) =>
            exists(
              selectFrom("syncs as s")
                .select(sql`1`.as("one"))
                .whereRef("s.id", "=", "r.sync_id")
                .where("s.workspace_id", "=", workspaceId)
                .where((eb) => eb.or([eb("s.source_id", "=", anyOf(connectorIds!, "int")), eb("s.destination_id", "=", anyOf(connectorIds!, "int"))])),
            ),
          ),
        )
        .groupBy([sql`1`, sql`2`, sql`3`, sql`4`, sql`5`, sql`6`]),
    )
    .selectFrom("buckets as b")
    .leftJoin("groups as g", "g.time_slice", "b.time_slice")
    .select(["b.time_slice", "g.status", "g.sync_run_type", "g.canceled", "g.stopped_error", "g.rejected", "g.runs", "g.total_rows", "g.successful_rows", "g.failed_rows"])
    .orderBy("b.time_slice")
    .execute();
}

/** One bucket's runs that share every fact their outcome is derived from, with their sums. */
type RunGroup = Awaited<ReturnType<typeof runGroups>>[number];

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

// A run's progress as the API shows it: rows read against the estimate fixed at its start (the
// previous run's count or the source's bounded count, lib/engine/run-estimate.ts), the read rate over
// the run so far, the time left at that rate, and the time spent waiting on the destination's rate
// limits. A percentage only ever rests on a count: "more than N" and unknown totals get none.
// Pure: `now` is passed in.
import type { SyncRun } from "@/lib/generated/prisma/client";
import { estimateSource } from "@/lib/sync-rules/run-estimate";
import type { RunTimings } from "@/lib/sync-rules/run-timings";
import type { RunProgressAttributes } from "./sync-runs.schema";

const ENDED = new Set(["success", "failed", "canceled"]);

/** The run's columns progress is built from, its timings parsed (storedRunTimingsSchema). */
export type ProgressFacts = Pick<SyncRun, "status" | "totalQueryRows" | "estimatedRows" | "estimateSource" | "startedAt" | "finishedAt"> & {
  timings: Pick<RunTimings, "wait">;
};

export function runProgress(r: ProgressFacts, now: Date): RunProgressAttributes {
  const read = r.totalQueryRows;
  const source = estimateSource(r.estimateSource);
  // Only a count is a total to measure against; an older run's planner guess (`source`) is not.
  const counted = source === "previous_run" || source === "count";
  const estimate = counted ? r.estimatedRows : null;
  const active = !ENDED.has(r.status);
  const end = active ? now : (r.finishedAt ?? now);
  const seconds = r.startedAt ? Math.max(0, end.getTime() - r.startedAt.getTime()) / 1000 : 0;
  const rate = seconds > 0 && read > 0 ? read / seconds : null;
  let percent: number | null = null;
  if (r.status === "success") percent = 100;
  // Floored and at most 99 unless it succeeded: while it runs the last rows read may still be
  // writing, and a failed or canceled run that read every counted row still did not finish. A run
  // that read past its estimate has no honest percentage (indeterminate).
  else if (estimate !== null && estimate > 0 && read <= estimate) percent = Math.min(99, Math.floor((read * 100) / estimate));
  else if (estimate === 0 && !active) percent = 99;
  const eta = active && rate !== null && estimate !== null && read < estimate ? Math.ceil((estimate - read) / rate) : null;
  const wait = r.timings.wait;
  return {
    rows_read: read,
    estimated_rows: estimate,
    estimate_source: source ?? (r.estimateSource === null ? null : "unknown"),
    more_than_rows: source === "count_bound" ? r.estimatedRows : null,
    percent,
    rows_per_second: rate === null ? null : Math.round(rate * 10) / 10,
    eta_seconds: eta,
    rate_limit_wait_seconds: Number.isFinite(wait) ? Math.round(wait / 100) / 10 : 0,
  };
}

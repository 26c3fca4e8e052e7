import { count, seconds } from "@/components/common/format";
import type { SyncRunAttributes } from "@/lib/api-client/types";
import { ACTIVE_RUN_STATUSES } from "@/lib/sync-rules/statuses";

/**
 * Rows read against the total fixed when the run started, with where that total came from said
 * plainly (the previous run's count, or the source's count when the run started), the read rate,
 * the time left and the time spent waiting on the destination's rate limits. A percentage only
 * rests on a count: when the count stopped at its bound ("more than N"), ran out of time, or has
 * not finished yet, the bar is indeterminate and the line says so.
 */
export function RunProgress({ run }: { run: SyncRunAttributes }) {
  const p = run.progress;
  const pct = p.percent;
  const { label, basis } = progressWords(run);
  const details = [
    p.rows_per_second !== null ? `${count(Math.round(p.rows_per_second))} rows/s` : null,
    p.eta_seconds !== null ? `about ${seconds(p.eta_seconds)} left` : null,
    p.rate_limit_wait_seconds > 0 ? `${seconds(p.rate_limit_wait_seconds)} waiting on rate limits` : null,
  ].filter(Boolean);
  return (
    <div className="w-full min-w-0 max-w-64" data-testid="run-progress">
      <div
        role="progressbar"
        aria-label="Run progress"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={pct ?? undefined}
        aria-valuetext={label}
        className="h-2 w-full overflow-hidden rounded-full bg-slate-200"
      >
        <div
          className={pct === null ? "h-full w-1/3 animate-pulse bg-indigo-400" : "h-full bg-indigo-600 transition-all"}
          style={pct === null ? undefined : { width: `${pct}%` }}
        />
      </div>
      <p className="mt-1 text-xs text-slate-600">{label}</p>
      {basis && <p className="text-xs text-slate-500" data-testid="run-progress-basis">{basis}</p>}
      {details.length > 0 && <p className="text-xs text-slate-500">{details.join(" · ")}</p>}
    </div>
  );
}

/** The progress line, and what its total rests on (null when the line says it already). */
function progressWords(run: SyncRunAttributes): { label: string; basis: string | null } {
  const p = run.progress;
  const read = count(p.rows_read);
  const estimate = p.estimated_rows;
  if (estimate !== null) {
    const previous = p.estimate_source === "previous_run";
    const basis = previous ? `Total expected: the previous run read ${count(estimate)} rows.` : "Total counted on the source when the run started.";
    if (p.rows_read > estimate) return { label: `${read} rows read (more than the ${count(estimate)} ${previous ? "expected" : "counted"})`, basis };
    return { label: `${read} of ${previous ? "~" : ""}${count(estimate)} rows${p.percent !== null ? ` (${p.percent}%)` : ""}`, basis };
  }
  if (p.estimate_source === "count_bound" && p.more_than_rows !== null) {
    return {
      label: `${read} rows read; the total is more than ${count(p.more_than_rows)}`,
      basis: `Counting stopped at ${count(p.more_than_rows)} rows, so no percentage.`,
    };
  }
  // A general run's count runs beside its read for a few seconds at most.
  const counting = p.estimate_source === null && run.sync_run_type === "general" && ACTIVE_RUN_STATUSES.has(run.status);
  if (counting) return { label: `${read} rows read; counting the total…`, basis: null };
  return { label: `${read} rows read; the total is unknown`, basis: "The source's rows were not counted (too slow to count, or a source that cannot), so no percentage." };
}

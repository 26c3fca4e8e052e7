import { count, seconds } from "@/components/common/format";
import type { SyncRunAttributes } from "@/lib/api-client/types";

/**
 * Rows read against the estimate fixed when the run started (the previous run's count or the
 * source's estimate), with the read rate, the time left, and the time spent waiting on the
 * destination's rate limits. Without an estimate, or past it, the bar is indeterminate.
 */
export function RunProgress({ run }: { run: SyncRunAttributes }) {
  const p = run.progress;
  const pct = p.percent;
  const estimate = p.estimated_rows;
  const read = p.rows_read;
  const over = estimate !== null && read >= estimate;
  const label =
    estimate === null
      ? `${count(read)} rows read (total unknown)`
      : over
        ? `${count(read)} rows read (more than the ${count(estimate)} expected)`
        : `${count(read)} of ~${count(estimate)} rows (${pct ?? 0}%)`;
  const details = [
    p.rows_per_second !== null ? `${count(Math.round(p.rows_per_second))} rows/s` : null,
    p.eta_seconds !== null ? `about ${seconds(p.eta_seconds)} left` : null,
    p.rate_limit_wait_seconds > 0 ? `${seconds(p.rate_limit_wait_seconds)} waiting on rate limits` : null,
  ].filter(Boolean);
  const source = p.estimate_source === "previous_run" ? "estimate: the previous run's count" : p.estimate_source === "source" ? "estimate: the source's" : null;
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
      <p className="mt-1 text-xs text-slate-600" title={source ?? undefined}>{label}</p>
      {details.length > 0 && <p className="text-xs text-slate-500">{details.join(" · ")}</p>}
    </div>
  );
}

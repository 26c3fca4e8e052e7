import type { SyncRunAttributes } from "@/lib/api-client/types";

/** processed_rows of total_query_rows while a run is active. */
export function RunProgress({ run }: { run: SyncRunAttributes }) {
  const total = run.total_query_rows ?? 0;
  const done = run.processed_rows ?? (run.successful_rows ?? 0) + (run.failed_rows ?? 0) + (run.skipped_rows ?? 0);
  const pct = total > 0 ? Math.min(100, Math.round((done / total) * 100)) : null;
  return (
    <div className="min-w-40">
      <div
        role="progressbar"
        aria-label="Run progress"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={pct ?? undefined}
        aria-valuetext={pct === null ? "Starting" : `${done} of ${total} rows`}
        className="h-2 w-full overflow-hidden rounded-full bg-slate-200"
      >
        <div className={pct === null ? "h-full w-1/3 animate-pulse bg-indigo-400" : "h-full bg-indigo-600 transition-all"} style={pct === null ? undefined : { width: `${pct}%` }} />
      </div>
      <p className="mt-1 text-xs text-slate-500">{pct === null ? "Starting…" : `${done.toLocaleString()} / ${total.toLocaleString()} rows (${pct}%)`}</p>
    </div>
  );
}

// Where a run's row estimate came from (sync_runs.estimate_source), shared by the engine, the
// serializer and the console. Browser-safe.

/**
 * previous_run: the rows the sync's last successful full read of the same model read.
 * count: the source counted the read's rows when the run started (a bounded count that finished below its bound).
 * count_bound: the count stopped at its bound: the read returns more than that many rows.
 * unknown: nothing honest to measure against (the count ran out of time, failed, or the source cannot count).
 */
export const ESTIMATE_SOURCES = ["previous_run", "count", "count_bound", "unknown"] as const;
export type EstimateSource = (typeof ESTIMATE_SOURCES)[number];

/** A stored source, or null for a value this version does not know (e.g. an older planner guess, `source`). */
export function estimateSource(stored: string | null): EstimateSource | null {
  return (ESTIMATE_SOURCES as readonly string[]).includes(stored ?? "") ? (stored as EstimateSource) : null;
}

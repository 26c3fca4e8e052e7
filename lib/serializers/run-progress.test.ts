import { describe, expect, it } from "vitest";
import { runProgress, type ProgressFacts } from "./run-progress";

const start = new Date("2026-11-23T10:00:00.000Z");
const at = (seconds: number) => new Date(start.getTime() + seconds * 1000);
const run = (over: Partial<ProgressFacts>): ProgressFacts => ({
  status: "in_progress",
  totalQueryRows: 0,
  estimatedRows: null,
  estimateSource: null,
  startedAt: start,
  finishedAt: null,
  timings: { wait: 0 },
  ...over,
});

describe("a run's progress", () => {
  it("measures rows read against the estimate: below 100% while running, with rate, time left and rate-limit waiting", () => {
    const p = runProgress(run({ totalQueryRows: 50_000, estimatedRows: 200_000, estimateSource: "previous_run", timings: { wait: 2_500 } }), at(5));
    expect(p).toEqual({
      rows_read: 50_000,
      estimated_rows: 200_000,
      estimate_source: "previous_run",
      more_than_rows: null,
      percent: 25,
      rows_per_second: 10_000,
      eta_seconds: 15,
      rate_limit_wait_seconds: 2.5,
    });
  });

  it("never reads 100% before the run succeeds: floored, and indeterminate past the estimate or without one", () => {
    expect(runProgress(run({ totalQueryRows: 199_999, estimatedRows: 200_000, estimateSource: "count" }), at(1)).percent).toBe(99);
    // Every row read, some still being written: 99, not 100.
    expect(runProgress(run({ totalQueryRows: 200_000, estimatedRows: 200_000, estimateSource: "count" }), at(1)).percent).toBe(99);
    const past = runProgress(run({ totalQueryRows: 250_000, estimatedRows: 200_000, estimateSource: "count" }), at(1));
    expect(past.percent).toBeNull();
    expect(past.eta_seconds).toBeNull();
    const unknown = runProgress(run({ totalQueryRows: 10 }), at(1));
    expect(unknown).toMatchObject({ estimated_rows: null, estimate_source: null, percent: null, eta_seconds: null, rows_per_second: 10 });
    expect(runProgress(run({ startedAt: null }), at(1))).toMatchObject({ rows_read: 0, percent: null, rows_per_second: null });
  });

  it("an ended run: 100% when it succeeded, where it stopped otherwise, its rate over its own duration, no time left", () => {
    const done = runProgress(run({ status: "success", totalQueryRows: 1000, estimatedRows: 900, estimateSource: "count", finishedAt: at(4) }), at(60));
    expect(done).toMatchObject({ percent: 100, rows_per_second: 250, eta_seconds: null });
    const stopped = runProgress(run({ status: "failed", totalQueryRows: 300, estimatedRows: 1000, estimateSource: "previous_run", finishedAt: at(3) }), at(60));
    expect(stopped).toMatchObject({ percent: 30, rows_per_second: 100, eta_seconds: null });
  });

  it("a failed or canceled run that read every counted row still reads 99%, not 100%: it did not finish", () => {
    for (const status of ["failed", "canceled"] as const) {
      const all = runProgress(run({ status, totalQueryRows: 1000, estimatedRows: 1000, estimateSource: "count", finishedAt: at(4) }), at(60));
      expect(all.percent).toBe(99);
      const none = runProgress(run({ status, totalQueryRows: 0, estimatedRows: 0, estimateSource: "count", finishedAt: at(4) }), at(60));
      expect(none.percent).toBe(99);
    }
  });

  it("never builds a percentage on a guess: a count stopped at its bound, an unknown total, an older run's planner guess", () => {
    const bound = runProgress(run({ totalQueryRows: 5_000, estimatedRows: 1_000_000, estimateSource: "count_bound" }), at(1));
    expect(bound).toMatchObject({ estimated_rows: null, estimate_source: "count_bound", more_than_rows: 1_000_000, percent: null, eta_seconds: null });
    const unknown = runProgress(run({ totalQueryRows: 5_000, estimateSource: "unknown" }), at(1));
    expect(unknown).toMatchObject({ estimated_rows: null, estimate_source: "unknown", more_than_rows: null, percent: null, eta_seconds: null });
    // Stored by earlier versions: PostgreSQL's planner estimate (seen off by 50× both ways).
    const planner = runProgress(run({ totalQueryRows: 37, estimatedRows: 211_924, estimateSource: "source" }), at(1));
    expect(planner).toMatchObject({ estimated_rows: null, estimate_source: "unknown", more_than_rows: null, percent: null, eta_seconds: null });
    expect(runProgress(run({ totalQueryRows: 37, estimatedRows: 37, estimateSource: "count" }), at(1))).toMatchObject({ estimated_rows: 37, percent: 99 });
  });
});

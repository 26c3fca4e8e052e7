// What each condition says about an ended run: fires, resolves, or says nothing (canceled, no rows).
import { describe, expect, it } from "vitest";
import { CANCELED_ERROR } from "@/lib/sync-rules/run-outcome";
import { thresholdProblem } from "@/lib/validation/alerts";
import { breachAfterRun, describeCondition, lagBreach, staleBreach } from "./conditions";

const run = (over: Partial<Parameters<typeof breachAfterRun>[1]> = {}) => ({
  status: "success",
  failed_rows: 0,
  total_rows: 100,
  error: null,
  canceled_by: null,
  started_at: new Date("2026-01-01T00:00:00Z"),
  finished_at: new Date("2026-01-01T00:10:00Z"),
  ...over,
});

describe("breachAfterRun", () => {
  it("run_failed: a failure fires, a success (with rejections too) resolves, a cancel says nothing", () => {
    const rule = { condition: "run_failed" as const, threshold: null };
    expect(breachAfterRun(rule, run({ status: "failed", error: "boom" }))).toBe(true);
    expect(breachAfterRun(rule, run({ failed_rows: 3 }))).toBe(false);
    expect(breachAfterRun(rule, run({ status: "failed", error: CANCELED_ERROR }))).toBeUndefined();
    expect(breachAfterRun(rule, run({ status: "failed", error: "x", canceled_by: "Ada" }))).toBeUndefined();
    expect(breachAfterRun(rule, run({ status: "in_progress" }))).toBeUndefined();
  });

  it("rejected rows: above the share or count fires, at it does not; a failed run without rows says nothing", () => {
    const percent = { condition: "rejected_rows_percent" as const, threshold: 10 };
    expect(breachAfterRun(percent, run({ failed_rows: 11 }))).toBe(true);
    expect(breachAfterRun(percent, run({ failed_rows: 10 }))).toBe(false);
    expect(breachAfterRun(percent, run({ status: "failed", error: "x", total_rows: 0 }))).toBeUndefined();
    expect(breachAfterRun(percent, run({ total_rows: 0 }))).toBe(false);
    const rows = { condition: "rejected_rows" as const, threshold: 5 };
    expect(breachAfterRun(rows, run({ failed_rows: 6 }))).toBe(true);
    expect(breachAfterRun(rows, run({ failed_rows: 5 }))).toBe(false);
  });

  it("duration and rows changed compare with the threshold", () => {
    expect(breachAfterRun({ condition: "run_duration", threshold: 9 }, run())).toBe(true);
    expect(breachAfterRun({ condition: "run_duration", threshold: 10 }, run())).toBe(false);
    expect(breachAfterRun({ condition: "rows_changed", threshold: 99 }, run())).toBe(true);
    expect(breachAfterRun({ condition: "rows_changed", threshold: 100 }, run())).toBe(false);
  });

  it("sync_not_succeeded: a success resolves, a failure leaves it to the sweep", () => {
    const rule = { condition: "sync_not_succeeded" as const, threshold: 60 };
    expect(breachAfterRun(rule, run())).toBe(false);
    expect(breachAfterRun(rule, run({ status: "failed", error: "x" }))).toBeUndefined();
    const last = new Date("2026-01-01T00:00:00Z");
    expect(staleBreach(rule, last, new Date("2026-01-01T01:00:00Z"))).toBe(false);
    expect(staleBreach(rule, last, new Date("2026-01-01T01:00:01Z"))).toBe(true);
  });

  it("describes conditions in words", () => {
    expect(describeCondition({ condition: "rejected_rows_percent", threshold: 5 })).toBe("rejected rows above 5% of a run's rows");
    expect(describeCondition({ condition: "sync_not_succeeded", threshold: 1 })).toBe("no successful run for 1 minute");
  });
});

describe("the live lag conditions", () => {
  const bytes = { condition: "live_lag_bytes" as const, threshold: 1_000_000 };
  const seconds = { condition: "live_lag_seconds" as const, threshold: 30 };

  it("fire above the threshold, resolve at or under it, and say nothing when the lag is unknown or a run ends", () => {
    expect(lagBreach(bytes, { bytes: 1_000_001, seconds: 0 })).toBe(true);
    expect(lagBreach(bytes, { bytes: 1_000_000, seconds: 999 })).toBe(false);
    expect(lagBreach(bytes, { bytes: null, seconds: 999 })).toBeUndefined();
    expect(lagBreach(seconds, { bytes: 5, seconds: 30.5 })).toBe(true);
    expect(lagBreach(seconds, { bytes: 1e12, seconds: 2 })).toBe(false);
    expect(lagBreach(seconds, { bytes: 5, seconds: null })).toBeUndefined();
    expect(breachAfterRun(bytes, run({ status: "failed", error: "boom" }))).toBeUndefined();
  });

  it("are described, and take whole bytes up to a terabyte, seconds up to the usual bound", () => {
    expect(describeCondition(bytes)).toBe("a live sync's replication slot holds more than 1,000,000 bytes of the source's WAL");
    expect(describeCondition({ ...seconds, threshold: 1 })).toBe("a live sync trails its source by more than 1 second");
    expect(thresholdProblem("live_lag_bytes", null)).toBe("is required for live_lag_bytes (in bytes)");
    expect(thresholdProblem("live_lag_bytes", 1.5)).toBe("must be a whole number of bytes");
    expect(thresholdProblem("live_lag_bytes", 500_000_000_000)).toBeNull();
    expect(thresholdProblem("live_lag_seconds", 2_000_000_000)).toBe("must be at most 1000000000");
    expect(thresholdProblem("run_duration", 2_000_000_000)).toBe("must be at most 1000000000");
  });
});

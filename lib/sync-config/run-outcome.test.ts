import { describe, expect, it } from "vitest";
import { CANCELED_ERROR, DISABLED_ERROR, describeOutcome, needsAttention, runOutcome } from "./run-outcome";

const run = (over: Partial<Parameters<typeof runOutcome>[0]>) => ({ status: "success", failed_rows: 0, error: null, canceled_by: null, ...over });

describe("a run's derived outcome", () => {
  it("a success with rows the destination refused is not a plain success, and needs attention", () => {
    const outcome = runOutcome(run({ failed_rows: 10 }));
    expect(outcome).toBe("succeeded_with_rejections");
    expect(describeOutcome(outcome, { failed_rows: 10, canceled_by: null })).toBe("succeeded with 10 rejected rows");
    expect(describeOutcome(outcome, { failed_rows: 1, canceled_by: null })).toBe("succeeded with 1 rejected row");
    expect(needsAttention(outcome)).toBe(true);
    expect(runOutcome(run({}))).toBe("succeeded");
    expect(needsAttention("succeeded")).toBe(false);
  });

  it("a run someone stopped is canceled, by whom when known, and needs no attention; other failures are failed", () => {
    const byAda = runOutcome(run({ status: "failed", error: CANCELED_ERROR, canceled_by: "Ada" }));
    expect(byAda).toBe("canceled");
    expect(describeOutcome(byAda, { failed_rows: 0, canceled_by: "Ada" })).toBe("canceled by Ada");
    expect(needsAttention(byAda)).toBe(false);
    // Runs canceled before canceled_by existed, runs stopped by a disable, runs that never started.
    expect(runOutcome(run({ status: "failed", error: CANCELED_ERROR }))).toBe("canceled");
    expect(runOutcome(run({ status: "failed", error: DISABLED_ERROR }))).toBe("canceled");
    expect(runOutcome(run({ status: "canceled", error: "The sync is disabled or deleted, so it does not run." }))).toBe("canceled");
    expect(describeOutcome("canceled", { failed_rows: 0, canceled_by: null })).toBe("canceled");
    expect(runOutcome(run({ status: "failed", error: "connection refused", failed_rows: 3 }))).toBe("failed");
    expect(needsAttention("failed")).toBe(true);
  });

  it("a run that has not ended is running, whatever its counters say", () => {
    for (const status of ["pending", "queued", "started", "querying", "in_progress", "paused"]) expect(runOutcome(run({ status, failed_rows: 4 }))).toBe("running");
  });

  it("a run the guard holds needs approval, and needs attention", () => {
    const held = runOutcome(run({ status: "needs_approval", error: "Stopped before writing anything: it would delete 9 of 10 tracked rows (90%), over the 20% limit." }));
    expect(held).toBe("needs_approval");
    expect(describeOutcome(held, { failed_rows: 0, canceled_by: null })).toBe("needs approval");
    expect(needsAttention(held)).toBe(true);
  });
});

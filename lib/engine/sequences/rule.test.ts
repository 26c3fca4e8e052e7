// The trigger rule: a dependent starts when every enabled upstream's latest run succeeded, one of
// those finished after the dependent's last start, it is enabled and not running.
import { describe, expect, it } from "vitest";
import { decideTrigger, type DependentFacts, type UpstreamFacts } from "./rule";

const t = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute));
const ok = (syncId: number, finishedMinute: number, disabled = false): UpstreamFacts => ({
  syncId,
  disabled,
  latestRun: { id: syncId * 100, status: "success", finishedAt: t(finishedMinute) },
});
const dependent = (over: Partial<DependentFacts> = {}): DependentFacts => ({ syncId: 9, disabled: false, lastRunCreatedAt: t(0), activeRunId: null, ...over });

describe("decideTrigger", () => {
  it("starts when every upstream succeeded and one finished after the dependent's last start", () => {
    expect(decideTrigger(dependent(), [ok(1, 5), ok(2, -10)])).toEqual({ action: "start" });
    expect(decideTrigger(dependent({ lastRunCreatedAt: null }), [ok(1, -5)])).toEqual({ action: "start" });
  });

  it("waits while an upstream's latest run failed, runs or never ran, naming it", () => {
    const failed: UpstreamFacts = { syncId: 2, disabled: false, latestRun: { id: 7, status: "failed", finishedAt: t(6) } };
    const running: UpstreamFacts = { syncId: 3, disabled: false, latestRun: { id: 8, status: "in_progress", finishedAt: null } };
    const never: UpstreamFacts = { syncId: 4, disabled: false, latestRun: null };
    const d = decideTrigger(dependent(), [ok(1, 5), failed, running, never]);
    expect(d.action).toBe("wait");
    expect(d.action === "wait" && d.reason).toMatch(/sync 2 \(run 7\) is failed.*sync 3 \(run 8\) is in_progress.*sync 4 has not run yet/);
  });

  it("does not start twice for the same successes", () => {
    // The dependent was created (started) after both upstreams finished: nothing new to run after.
    expect(decideTrigger(dependent({ lastRunCreatedAt: t(10) }), [ok(1, 5), ok(2, 8)]).action).toBe("started");
  });

  it("skips a disabled dependent and leaves disabled upstreams out", () => {
    expect(decideTrigger(dependent({ disabled: true }), [ok(1, 5)]).action).toBe("skip");
    const disabledFailed: UpstreamFacts = { syncId: 2, disabled: true, latestRun: { id: 7, status: "failed", finishedAt: t(6) } };
    expect(decideTrigger(dependent(), [ok(1, 5), disabledFailed])).toEqual({ action: "start" });
    expect(decideTrigger(dependent(), [{ ...ok(1, 5), disabled: true }]).action).toBe("wait");
  });

  it("is busy when a run that began before the successes is still active", () => {
    const d = decideTrigger(dependent({ activeRunId: 42 }), [ok(1, 5)]);
    expect(d.action).toBe("busy");
    expect(d.action === "busy" && d.reason).toContain("run 42");
  });
});

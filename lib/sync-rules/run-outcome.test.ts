import { describe, expect, it } from "vitest";
import { CANCELED_ERROR, DISABLED_ERROR, approvalSentence, describeOutcome, runOutcome, runTruth, syncTruth } from "./run-outcome";

const run = (over: Partial<Parameters<typeof runOutcome>[0]>) => ({ status: "success", failed_rows: 0, error: null, canceled_by: null, ...over });

describe("a run's derived outcome", () => {
  it("a success with rows the destination refused is not a plain success, and needs attention", () => {
    const outcome = runOutcome(run({ failed_rows: 10 }));
    expect(outcome).toBe("succeeded_with_rejections");
    expect(describeOutcome(outcome, { failed_rows: 10, canceled_by: null })).toBe("succeeded with 10 rejected rows");
    expect(describeOutcome(outcome, { failed_rows: 1, canceled_by: null })).toBe("succeeded with 1 rejected row");
    expect(runTruth(run({ failed_rows: 10 })).attention).toBe(true);
    expect(runOutcome(run({}))).toBe("succeeded");
    expect(runTruth(run({})).attention).toBe(false);
  });

  it("a run someone stopped is canceled, by whom when known, and needs no attention; other failures are failed", () => {
    const byAda = runOutcome(run({ status: "failed", error: CANCELED_ERROR, canceled_by: "Ada" }));
    expect(byAda).toBe("canceled");
    expect(describeOutcome(byAda, { failed_rows: 0, canceled_by: "Ada" })).toBe("canceled by Ada");
    expect(runTruth(run({ status: "failed", error: CANCELED_ERROR, canceled_by: "Ada" })).attention).toBe(false);
    // Runs canceled before canceled_by existed, runs stopped by a disable, runs that never started.
    expect(runOutcome(run({ status: "failed", error: CANCELED_ERROR }))).toBe("canceled");
    expect(runOutcome(run({ status: "failed", error: DISABLED_ERROR }))).toBe("canceled");
    expect(runOutcome(run({ status: "canceled", error: "The sync is disabled or deleted, so it does not run." }))).toBe("canceled");
    expect(describeOutcome("canceled", { failed_rows: 0, canceled_by: null })).toBe("canceled");
    expect(runOutcome(run({ status: "failed", error: "connection refused", failed_rows: 3 }))).toBe("failed");
    expect(runTruth(run({ status: "failed", error: "connection refused" })).attention).toBe(true);
  });

  it("a run that has not ended is running, whatever its counters say", () => {
    for (const status of ["pending", "queued", "started", "querying", "in_progress", "paused"]) expect(runOutcome(run({ status, failed_rows: 4 }))).toBe("running");
  });

  it("a run the guard holds needs approval, and needs attention", () => {
    const held = runOutcome(run({ status: "needs_approval", error: "Stopped before writing anything: it would delete 9 of 10 tracked rows (90%), over the 20% limit." }));
    expect(held).toBe("needs_approval");
    expect(describeOutcome(held, { failed_rows: 0, canceled_by: null })).toBe("needs approval");
    expect(runTruth(run({ status: "needs_approval" })).attention).toBe(true);
  });

});

// Issue 35: every view (run page, runs table, sync badge and last run, dashboard) says what runTruth says.
describe("runTruth: the one derivation every view shows", () => {
  const HOLD = "Stopped before writing anything: it would delete 18 of 20 tracked rows (90%), over the 20% limit.";

  it("a held run: needs approval, needs attention, no failure", () => {
    const t = runTruth(run({ status: "needs_approval", error: HOLD, held: true }));
    expect(t).toMatchObject({ outcome: "needs_approval", text: "needs approval", tone: "amber", attention: true, failure: false });
    expect(approvalSentence(run({ status: "needs_approval", error: HOLD, held: true }))).toBe("Held: it waits for someone to approve or cancel it.");
  });

  it("a held run canceled before anyone approved it: canceled by whom, not approved, nothing written; never 'approved'", () => {
    const facts = run({ status: "failed", error: CANCELED_ERROR, canceled_by: "Grace", held: true, approved: false, approved_by: null, successful_rows: 0 });
    const t = runTruth(facts);
    expect(t).toMatchObject({ outcome: "canceled", label: "canceled by Grace", tone: "slate", attention: false, failure: false });
    expect(t.text).toBe("canceled by Grace · not approved · nothing written");
    expect(approvalSentence(facts)).toBe("Held for approval; nobody approved it. Canceled by Grace before writing anything.");
    expect(approvalSentence(facts)).not.toMatch(/^Approved/);
    // A caller who may not know who canceled still reads that nobody approved it.
    expect(runTruth({ ...facts, canceled_by: null }).text).toBe("canceled · not approved · nothing written");
  });

  it("an approved run says by whom, whatever it came to", () => {
    const ok = run({ held: true, approved: true, approved_by: "Ada", successful_rows: 2 });
    expect(runTruth(ok)).toMatchObject({ outcome: "succeeded", text: "succeeded · approved by Ada", attention: false });
    expect(approvalSentence(ok)).toBe("Approved by Ada: it ran within the approved plan.");
    const canceled = run({ status: "failed", error: CANCELED_ERROR, canceled_by: "Grace", held: true, approved: true, approved_by: "Ada", successful_rows: 1200 });
    expect(runTruth(canceled).text).toBe("canceled by Grace · approved by Ada · 1,200 rows written before the cancel");
    // approved_by hidden from this caller: still approved.
    expect(runTruth({ ...ok, approved_by: null }).text).toBe("succeeded · approved");
  });

  it("a cancel says whether anything was written before it", () => {
    expect(runTruth(run({ status: "failed", error: CANCELED_ERROR, canceled_by: "Ada", successful_rows: 1 })).text).toBe("canceled by Ada · 1 row written before the cancel");
    expect(runTruth(run({ status: "failed", error: CANCELED_ERROR, canceled_by: "Ada", successful_rows: 0 })).text).toBe("canceled by Ada · nothing written");
    // Not known (left out): not claimed either way.
    expect(runTruth(run({ status: "failed", error: CANCELED_ERROR, canceled_by: "Ada" })).text).toBe("canceled by Ada");
  });

  it("succeeded, succeeded with N rejected rows, failed", () => {
    expect(runTruth(run({}))).toMatchObject({ text: "succeeded", tone: "green", attention: false, failure: false });
    expect(runTruth(run({ failed_rows: 30 }))).toMatchObject({ text: "succeeded with 30 rejected rows", tone: "amber", attention: true, failure: false });
    expect(runTruth(run({ status: "failed", error: "connection refused" }))).toMatchObject({ text: "failed", tone: "red", attention: true, failure: true });
  });

  it("a test run is never a failure nor a reason for attention, and says it was a test", () => {
    const t = runTruth(run({ status: "failed", error: "refused", failed_rows: 1, sync_run_type: "test" }));
    expect(t).toMatchObject({ outcome: "failed", text: "failed · test", attention: false, failure: false });
    expect(runTruth(run({ sync_run_type: "test" })).text).toBe("succeeded · test");
  });
});

describe("syncTruth: a sync's badge", () => {
  const sync = (status: string, last_outcome: Parameters<typeof runTruth>[0] | null, last_run = last_outcome) => ({ status, last_outcome, last_run });

  it("a healthy sync whose latest run had rejected rows needs attention, not healthy", () => {
    const t = syncTruth(sync("healthy", run({ failed_rows: 30 })));
    expect(t).toMatchObject({ label: "needs attention", tone: "amber", attention: true, reason: "its latest run succeeded with 30 rejected rows" });
    expect(syncTruth(sync("healthy", run({})))).toMatchObject({ label: "healthy", tone: "green", attention: false });
  });

  it("a held run makes it need approval; a cancel or a test leaves it as its status says", () => {
    expect(syncTruth(sync("healthy", run({}), run({ status: "needs_approval", held: true })))).toMatchObject({ label: "needs approval", attention: true });
    expect(syncTruth(sync("healthy", run({ status: "failed", error: CANCELED_ERROR, canceled_by: "Ada" })))).toMatchObject({ label: "healthy", attention: false });
    expect(syncTruth(sync("healthy", run({}), run({ status: "failed", error: "x", sync_run_type: "test" })))).toMatchObject({ label: "healthy", attention: false });
  });

  it("failed and disabled syncs say so", () => {
    expect(syncTruth(sync("failed", run({ status: "failed", error: "x" })))).toMatchObject({ label: "failed", tone: "red", attention: true, reason: "its latest run failed" });
    expect(syncTruth(sync("disabled", run({ failed_rows: 3 })))).toMatchObject({ label: "disabled", attention: false });
  });
});

// A sequence run's progress: steps follow their runs, a step that can no longer start says why, and
// the sequence settles only when nothing may move any more.
import { describe, expect, it } from "vitest";
import type { SyncRunStatus } from "@/lib/generated/prisma/enums";
import { sequenceStatus, stepProgress, type StepFacts } from "./progress";

const step = (syncId: number, upstreamSyncIds: number[], over: Partial<StepFacts> = {}): StepFacts => ({
  syncId,
  upstreamSyncIds,
  state: "waiting",
  reason: null,
  runStatus: null,
  dependentsChecked: false,
  syncDeleted: false,
  ...over,
});
const ran = (status: SyncRunStatus, checked = true): Partial<StepFacts> => ({ state: "triggered", runStatus: status, dependentsChecked: checked });

function summary(steps: StepFacts[]) {
  const p = stepProgress(steps);
  return { status: sequenceStatus(p), states: steps.map((s) => p.get(s.syncId)?.state) };
}

describe("sequence progress", () => {
  it("A → B → C: running, then success once C succeeded", () => {
    expect(summary([step(1, [], ran("in_progress")), step(2, [1]), step(3, [2])])).toEqual({ status: "running", states: ["running", "waiting", "waiting"] });
    expect(summary([step(1, [], ran("success")), step(2, [1], ran("queued")), step(3, [2])]).status).toBe("running");
    expect(summary([step(1, [], ran("success")), step(2, [1], ran("success")), step(3, [2], ran("success"))])).toEqual({
      status: "success",
      states: ["success", "success", "success"],
    });
  });

  it("stays running between a success and the hook that looks at its dependents", () => {
    expect(summary([step(1, [], ran("success", false)), step(2, [1])])).toEqual({ status: "running", states: ["success", "waiting"] });
  });

  it("a failed A leaves B and C not run, and the sequence failed", () => {
    const steps = [step(1, [], ran("failed", false)), step(2, [1]), step(3, [2])];
    expect(summary(steps)).toEqual({ status: "failed", states: ["failed", "not_run", "not_run"] });
    expect(stepProgress(steps).get(3)?.reason).toBe("upstream sync 2 did not succeed");
  });

  it("waits in a diamond until both branches settled", () => {
    const base = [step(1, [], ran("success")), step(2, [1], ran("success")), step(3, [1], ran("in_progress"))];
    expect(summary([...base, step(4, [2, 3])]).states[3]).toBe("waiting");
    const oneFailed = [step(1, [], ran("success")), step(2, [1], ran("success")), step(3, [1], ran("failed")), step(4, [2, 3])];
    expect(summary(oneFailed)).toEqual({ status: "failed", states: ["success", "success", "failed", "not_run"] });
  });

  it("a disabled sync is skipped with what follows only from it, and does not fail the sequence", () => {
    const steps = [step(1, [], ran("success")), step(2, [1], { state: "skipped", reason: "sync 2 is disabled" }), step(3, [2])];
    expect(summary(steps)).toEqual({ status: "success", states: ["success", "skipped", "skipped"] });
  });

  it("a step the rule blocked, or that an outside upstream held back, is not run", () => {
    expect(summary([step(1, [], ran("success")), step(2, [1], { state: "blocked", reason: "already running" })]).states[1]).toBe("not_run");
    const heldBack = stepProgress([step(1, [], ran("success")), step(2, [1, 99], { reason: "waiting for its upstreams: sync 99 has not run yet" })]);
    expect(heldBack.get(2)).toEqual({ state: "not_run", reason: "waiting for its upstreams: sync 99 has not run yet" });
  });

  it("a run waiting for approval settles the sequence as needs_approval once nothing else moves", () => {
    expect(summary([step(1, [], ran("success")), step(2, [1], ran("needs_approval")), step(3, [2])])).toEqual({
      status: "needs_approval",
      states: ["success", "needs_approval", "waiting"],
    });
  });
});

// The transition table against rules a user would notice, each written out here rather than derived
// from the table under test.
import { describe, expect, it } from "vitest";
import { Conflict } from "@/lib/errors";
import type { SyncRunStatus } from "@/lib/generated/prisma/enums";
import {
  ACTIVE_RUN_STATUSES,
  assertRunTransition,
  assertSyncTransition,
  canTransitionRun,
  canTransitionSync,
  RUN_TRANSITIONS,
  runStatusesAllowing,
  syncStatusAfterRun,
  TERMINAL_RUN_STATUSES,
} from "./transitions";

const ENDED: SyncRunStatus[] = ["success", "failed", "canceled"];
const NOT_ENDED: SyncRunStatus[] = ["pending", "queued", "started", "querying", "in_progress", "paused", "needs_approval"];

describe("runs", () => {
  it("a finished run never changes again: not claimed, not requeued, not re-finished", () => {
    for (const from of ENDED) {
      for (const to of [...ENDED, ...NOT_ENDED]) {
        expect(canTransitionRun(from, to), `${from} → ${to}`).toBe(false);
        expect(() => assertRunTransition(from, to)).toThrow(Conflict);
      }
    }
  });

  it("a canceled or failed run never becomes success", () => {
    expect(canTransitionRun("canceled", "success")).toBe(false);
    expect(canTransitionRun("failed", "success")).toBe(false);
    expect(runStatusesAllowing("success")).not.toContain("canceled");
    expect(runStatusesAllowing("success")).not.toContain("failed");
  });

  it("a worker may claim a waiting run, a paused one, or one a dead worker left running; never a finished one", () => {
    expect(runStatusesAllowing("started").sort()).toEqual(["in_progress", "paused", "pending", "querying", "queued", "started"]);
  });

  it("a cancel (failing the run) reaches every run not yet finished", () => {
    expect(runStatusesAllowing("failed").sort()).toEqual([...NOT_ENDED].sort());
  });

  it("only a run a worker holds can succeed; a waiting or paused run must be claimed first", () => {
    expect(runStatusesAllowing("success").sort()).toEqual(["in_progress", "querying", "started"]);
  });

  it("a run held for approval waits with no worker: approve queues it, a cancel or disable fails it", () => {
    expect(RUN_TRANSITIONS.needs_approval.slice().sort()).toEqual(["canceled", "failed", "queued"]);
    // in_progress: a live sync's rolling run between micro-batches; an ordinary run's hold excludes it (run-store.ts holdRunForApproval).
    expect(runStatusesAllowing("needs_approval").sort()).toEqual(["in_progress", "needs_approval", "querying", "started"]);
  });

  it("a paused run waits with no worker and goes back to one (claim) or to the queue (reaper)", () => {
    expect(canTransitionRun("paused", "started")).toBe(true);
    expect(canTransitionRun("paused", "queued")).toBe(true);
    expect(canTransitionRun("queued", "paused")).toBe(false);
  });

  it("active means not finished, and finished means the three end states", () => {
    expect([...TERMINAL_RUN_STATUSES].sort()).toEqual([...ENDED].sort());
    expect([...ACTIVE_RUN_STATUSES].sort()).toEqual([...NOT_ENDED].sort());
  });
});

describe("syncs", () => {
  it("a disabled sync never turns healthy, failed or aborted by a run; only enabling (pending) leaves it", () => {
    for (const outcome of ["success", "failed", "canceled"] as const) expect(syncStatusAfterRun("disabled", outcome)).toBeUndefined();
    expect(canTransitionSync("disabled", "healthy")).toBe(false);
    expect(() => assertSyncTransition("disabled", "healthy")).toThrow(Conflict);
    expect(canTransitionSync("disabled", "pending")).toBe(true);
  });

  it("a run's outcome shows on the sync: success heals even a failed sync, failure fails it, a cancel changes nothing", () => {
    expect(syncStatusAfterRun("failed", "success")).toBe("healthy");
    expect(syncStatusAfterRun("pending", "success")).toBe("healthy");
    expect(syncStatusAfterRun("healthy", "failed")).toBe("failed");
    for (const from of ["pending", "healthy", "failed", "aborted"] as const) expect(syncStatusAfterRun(from, "canceled")).toBeUndefined();
  });

  it("any sync can be disabled, and disabling twice is not an error", () => {
    for (const from of ["pending", "healthy", "failed", "aborted", "disabled"] as const) expect(() => assertSyncTransition(from, "disabled")).not.toThrow();
  });

  it("a sync cannot be set back to pending except by enabling it", () => {
    for (const from of ["healthy", "failed", "aborted"] as const) expect(canTransitionSync(from, "pending")).toBe(false);
  });
});

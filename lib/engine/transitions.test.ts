import { describe, expect, it } from "vitest";
import { Conflict } from "@/lib/errors";
import {
  assertRunTransition,
  assertSyncTransition,
  canTransitionRun,
  RUN_STATUSES,
  RUN_TRANSITIONS,
  runStatusesAllowing,
  SYNC_STATUSES,
  SYNC_TRANSITIONS,
  syncStatusAfterRun,
  TERMINAL_RUN_STATUSES,
} from "./transitions";

describe("run transitions", () => {
  it("walks the whole table: listed moves pass, every other move is refused", () => {
    for (const from of RUN_STATUSES) {
      for (const to of RUN_STATUSES) {
        const listed = RUN_TRANSITIONS[from].includes(to) || (from === to && !TERMINAL_RUN_STATUSES.includes(from));
        if (listed) expect(() => assertRunTransition(from, to)).not.toThrow();
        else expect(() => assertRunTransition(from, to), `${from} → ${to}`).toThrow(Conflict);
      }
    }
  });

  it("never leaves a terminal status", () => {
    for (const from of TERMINAL_RUN_STATUSES) for (const to of RUN_STATUSES) expect(canTransitionRun(from, to)).toBe(false);
  });

  it("lists the statuses a change may start from", () => {
    expect(runStatusesAllowing("started").sort()).toEqual(["pending", "queued", "paused", "started"].sort());
    expect(runStatusesAllowing("canceled")).not.toContain("success");
  });
});

describe("sync transitions", () => {
  it("walks the whole table", () => {
    for (const from of SYNC_STATUSES) {
      for (const to of SYNC_STATUSES) {
        const listed = SYNC_TRANSITIONS[from].includes(to) || from === to;
        if (listed) expect(() => assertSyncTransition(from, to)).not.toThrow();
        else expect(() => assertSyncTransition(from, to), `${from} → ${to}`).toThrow(Conflict);
      }
    }
  });

  it("a successful run heals a failed sync; a disabled sync stays disabled", () => {
    expect(syncStatusAfterRun("failed", "success")).toBe("healthy");
    expect(syncStatusAfterRun("healthy", "failed")).toBe("failed");
    expect(syncStatusAfterRun("healthy", "canceled")).toBe("aborted");
    expect(syncStatusAfterRun("disabled", "success")).toBeUndefined();
  });
});

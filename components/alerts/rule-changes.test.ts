import { describe, expect, it } from "vitest";
import { ruleChanges } from "./rule-changes";

const before = { name: "Failures", condition: "run_failed" as const, threshold: null, sync_id: 7, channel_ids: [1, 2] };

describe("ruleChanges", () => {
  it("a rename sends the name alone: not the (perhaps deleted) sync nor the channels", () => {
    expect(ruleChanges({ ...before, name: "Renamed" }, before, false)).toEqual({ name: "Renamed" });
  });

  it("nothing changed: an empty update (channels in another order are no change)", () => {
    expect(ruleChanges({ ...before, channel_ids: [2, 1] }, before, false)).toEqual({});
  });

  it("a changed sync (to every sync) and channel list are sent", () => {
    expect(ruleChanges({ ...before, sync_id: null, channel_ids: [1] }, before, false)).toEqual({ sync_id: null, channel_ids: [1] });
  });

  it("a changed condition takes its threshold along, cleared when it has none", () => {
    expect(ruleChanges({ ...before, condition: "rejected_rows", threshold: 50 }, before, true)).toEqual({ condition: "rejected_rows", threshold: 50 });
    const slow = { ...before, condition: "run_duration" as const, threshold: 30 };
    expect(ruleChanges({ ...slow, condition: "run_failed" }, slow, false)).toEqual({ condition: "run_failed", threshold: null });
  });

  it("a changed threshold alone is sent", () => {
    const slow = { ...before, condition: "run_duration" as const, threshold: 30 };
    expect(ruleChanges({ ...slow, threshold: 45 }, slow, true)).toEqual({ threshold: 45 });
  });
});

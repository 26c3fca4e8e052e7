import { describe, expect, it } from "vitest";
import { ruleChanges } from "./rule-changes";

const values = { name: "Renamed", condition: "run_failed" as const, threshold: null, sync_id: 7, channel_ids: [1, 2] };

describe("ruleChanges", () => {
  it("a rename sends the name alone: not the (perhaps deleted) sync nor the channels", () => {
    expect(ruleChanges(values, { name: true }, false)).toEqual({ name: "Renamed" });
  });

  it("nothing changed: an empty update", () => {
    expect(ruleChanges(values, {}, false)).toEqual({});
  });

  it("a changed sync (to every sync) and channel list are sent", () => {
    expect(ruleChanges({ ...values, sync_id: null }, { sync_id: true, channel_ids: [false, true] }, false)).toEqual({ sync_id: null, channel_ids: [1, 2] });
  });

  it("a changed condition takes its threshold along, cleared when it has none", () => {
    const rows = { ...values, condition: "rejected_rows" as const, threshold: 50 };
    expect(ruleChanges(rows, { condition: true }, true)).toEqual({ condition: "rejected_rows", threshold: 50 });
    expect(ruleChanges(values, { condition: true, threshold: true }, false)).toEqual({ condition: "run_failed", threshold: null });
  });

  it("a changed threshold alone is sent", () => {
    expect(ruleChanges({ ...values, condition: "run_duration", threshold: 30 }, { threshold: true }, true)).toEqual({ threshold: 30 });
  });
});

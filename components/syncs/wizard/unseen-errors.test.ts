import { describe, expect, it } from "vitest";
import { unseenErrors } from "./unseen-errors";

/** A stand-in for the step's DOM: which `sync.*` fields have a control on screen. */
const rendered = (...fields: string[]) => ({
  querySelector: (selector: string) => (fields.some((f) => selector.includes(`"sync.${f}"`) || selector.includes(`~="sync.${f}"`)) ? ({} as Element) : null),
});

describe("unseenErrors", () => {
  it("lists, with its label, an error of a field that has no control on screen", () => {
    const errors = { sync: { sync_interval: { type: "custom", message: "must be a whole number" }, cron_expression: { type: "custom", message: "is required" } } };
    expect(unseenErrors(errors, ["schedule_type", "sync_interval", "cron_expression"], rendered("schedule_type", "cron_expression"))).toEqual(["Every: must be a whole number"]);
  });

  it("lists an item's error under its field even when the field has a control", () => {
    const errors = { sync: { configuration: [{ to: { type: "too_big", message: "must be at most 1000 characters" } }] } };
    expect(unseenErrors(errors, ["configuration"], rendered("configuration"))).toEqual(["Mappings (0.to): must be at most 1000 characters"]);
  });

  it("says nothing when every error is beside its control, or there is none", () => {
    expect(unseenErrors({ sync: { name: { type: "custom", message: "is taken" } } }, ["name"], rendered("name"))).toEqual([]);
    expect(unseenErrors({}, ["name"], null)).toEqual([]);
  });
});

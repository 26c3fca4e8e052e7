import { describe, expect, it } from "vitest";
import { scheduleConflictErrors, scheduleUses, type ScheduleInput } from "./syncs";

const both = { sync_interval: true, cron_expression: true };
const paths = (s: ScheduleInput, set = both) => scheduleConflictErrors(s, set).map((e) => e.path);

describe("scheduleConflictErrors", () => {
  it("refuses an interval sent beside the cron expression a cron schedule runs on", () => {
    const [error] = scheduleConflictErrors({ schedule_type: "cron_expression", cron_expression: "0 * * * *", sync_interval: 5 }, both);
    expect(error).toEqual({ path: "sync.sync_interval", message: expect.stringMatching(/^conflicts with schedule_type cron_expression/) });
  });

  it("refuses a cron expression sent with an interval schedule", () => {
    expect(paths({ schedule_type: "interval", sync_interval: 5, sync_interval_unit: "minutes", cron_expression: "0 * * * *" })).toEqual([
      "sync.cron_expression",
    ]);
  });

  it("refuses both on a manual schedule, and the interval beside a cron on an automated one", () => {
    expect(paths({ schedule_type: "manual", sync_interval: 5, cron_expression: "0 * * * *" })).toEqual(["sync.sync_interval", "sync.cron_expression"]);
    expect(paths({ schedule_type: "automated", sync_interval: 5, cron_expression: "0 * * * *" })).toEqual(["sync.sync_interval"]);
  });

  it("accepts the values the schedule runs on, and values the request did not set", () => {
    expect(paths({ schedule_type: "interval", sync_interval: 5, sync_interval_unit: "minutes" }, { sync_interval: true, cron_expression: false })).toEqual([]);
    expect(paths({ schedule_type: "automated", cron_expression: "0 * * * *" }, { sync_interval: false, cron_expression: true })).toEqual([]);
    expect(paths({ schedule_type: "cron_expression", cron_expression: "0 * * * *", sync_interval: 5 }, { sync_interval: false, cron_expression: true })).toEqual([]);
  });
});

describe("scheduleUses", () => {
  it("runs an automated schedule on its cron expression when it has one, else on its interval", () => {
    expect(scheduleUses({ schedule_type: "automated", cron_expression: " " })).toEqual({ cron: null, useCron: false, useInterval: true });
    expect(scheduleUses({ schedule_type: "automated", cron_expression: "0 * * * *" })).toEqual({ cron: "0 * * * *", useCron: true, useInterval: false });
    expect(scheduleUses({ schedule_type: "manual" })).toEqual({ cron: null, useCron: false, useInterval: false });
  });
});

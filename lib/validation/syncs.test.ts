import { describe, expect, it } from "vitest";
import { scheduleErrors, scheduleUses } from "./syncs";

const paths = (...args: Parameters<typeof scheduleErrors>) => scheduleErrors(...args).map((e) => e.path);

describe("scheduleErrors: the schedule type decides", () => {
  it("accepts values for fields the type does not run on (the reference SDK sends sync_interval on every sync)", () => {
    expect(paths({ schedule_type: "cron_expression", cron_expression: "0 * * * *", sync_interval: 15, sync_interval_unit: "minutes" })).toEqual([]);
    expect(paths({ schedule_type: "interval", sync_interval: 5, sync_interval_unit: "minutes", cron_expression: "0 * * * *" })).toEqual([]);
    expect(paths({ schedule_type: "manual", sync_interval: 5, sync_interval_unit: "hours", cron_expression: "0 * * * *" })).toEqual([]);
    expect(paths({ schedule_type: "automated", sync_interval: 5, cron_expression: "0 * * * *" })).toEqual([]);
  });

  it("ignores an unusable value in a field the type does not use", () => {
    expect(paths({ schedule_type: "interval", sync_interval: 5, sync_interval_unit: "minutes", cron_expression: "not a cron" })).toEqual([]);
    expect(paths({ schedule_type: "cron_expression", cron_expression: "0 * * * *", sync_interval: -3 })).toEqual([]);
  });

  it("refuses a field the type needs that is missing or wrong", () => {
    expect(paths({ schedule_type: "cron_expression", sync_interval: 15, sync_interval_unit: "minutes" })).toEqual(["sync.cron_expression"]);
    expect(paths({ schedule_type: "cron_expression", cron_expression: "61 * * * *" })).toEqual(["sync.cron_expression"]);
    expect(paths({ schedule_type: "interval", sync_interval: 0, cron_expression: "0 * * * *" })).toEqual(["sync.sync_interval", "sync.sync_interval_unit"]);
    expect(paths({ schedule_type: "automated", sync_interval: 5 })).toEqual(["sync.sync_interval_unit"]);
  });
});

describe("scheduleUses", () => {
  it("runs an automated schedule on its cron expression when it has one, else on its interval", () => {
    expect(scheduleUses({ schedule_type: "automated", cron_expression: " " })).toEqual({ cron: null, useCron: false, useInterval: true });
    expect(scheduleUses({ schedule_type: "automated", cron_expression: "0 * * * *" })).toEqual({ cron: "0 * * * *", useCron: true, useInterval: false });
    expect(scheduleUses({ schedule_type: "manual" })).toEqual({ cron: null, useCron: false, useInterval: false });
  });
});

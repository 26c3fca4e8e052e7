import { describe, expect, it } from "vitest";
import { scheduleFieldProblem } from "./schedule-problems";

describe("the schedule form's messages", () => {
  it("say what to type in the Every box, in its unit", () => {
    expect(scheduleFieldProblem("sync_interval", { sync_interval: Number.NaN, sync_interval_unit: "minutes" })).toBe(
      "Enter how many minutes to wait between runs: a whole number, 1 or more.",
    );
    expect(scheduleFieldProblem("sync_interval", { sync_interval: 0, sync_interval_unit: "days" })).toMatch(/^Enter 1 or more/);
    expect(scheduleFieldProblem("sync_interval", { sync_interval: 0.5, sync_interval_unit: "hours" })).toMatch(/pick a smaller unit/);
    expect(scheduleFieldProblem("sync_interval", { sync_interval: 2_000_000, sync_interval_unit: "minutes" })).toMatch(/larger unit/);
    expect(scheduleFieldProblem("sync_interval", { sync_interval: 15, sync_interval_unit: "minutes" })).toBeNull();
  });

  it("name the cron field that is wrong and what it may hold, never the parser's words or the API's field names", () => {
    const bad = scheduleFieldProblem("cron_expression", { cron_expression: "61 * * * *", timezone: "UTC" });
    expect(bad).toBe('The minute (the 1st field) "61" is not valid: use 0 to 59, or * (every), a list such as 1,15, a range such as 1-5 or a step such as */15.');
    expect(scheduleFieldProblem("cron_expression", { cron_expression: "0 9 * * 9" })).toMatch(/^The day-of-week \(the 5th field\) "9"/);
    expect(scheduleFieldProblem("cron_expression", { cron_expression: "0 0 9 * * *" })).toMatch(/has 6\. A seconds field is not supported/);
    expect(scheduleFieldProblem("cron_expression", { cron_expression: "  " })).toMatch(/^Enter a cron expression of 5 fields/);
    for (const e of ["61 * * * *", "", "* *"]) {
      expect(scheduleFieldProblem("cron_expression", { cron_expression: e })).not.toMatch(/CronPattern|schedule_type|cron_expression/);
    }
    expect(scheduleFieldProblem("cron_expression", { cron_expression: "*/15 9-17 * * MON-FRI", timezone: "Europe/Paris" })).toBeNull();
  });

  it("leave a bad time zone to the time zone's own field", () => {
    expect(scheduleFieldProblem("cron_expression", { cron_expression: "0 9 * * *", timezone: "Mars/Olympus" })).toBeNull();
    expect(scheduleFieldProblem("timezone", { timezone: "Mars/Olympus" })).toMatch(/choose one from the list/);
  });
});

import { describe, expect, it } from "vitest";
import { advanceNextRunAt, computeNextRunAt, cronExpressionError, nextRunTimes } from "./schedule";

const from = new Date("2026-03-01T10:15:00.000Z");

describe("schedule", () => {
  it("manual and disabled syncs never run on their own", () => {
    expect(computeNextRunAt({ scheduleType: "manual" }, from)).toBeNull();
    expect(computeNextRunAt({ scheduleType: "interval", syncInterval: 5, syncIntervalUnit: "minutes", status: "disabled" }, from)).toBeNull();
  });

  it("intervals step by real units, weeks being 7 days", () => {
    expect(computeNextRunAt({ scheduleType: "interval", syncInterval: 30, syncIntervalUnit: "minutes" }, from)?.toISOString()).toBe(
      "2026-03-01T10:45:00.000Z",
    );
    expect(computeNextRunAt({ scheduleType: "interval", syncInterval: 2, syncIntervalUnit: "weeks" }, from)?.toISOString()).toBe(
      "2026-03-15T10:15:00.000Z",
    );
    const times = nextRunTimes({ scheduleType: "interval", syncInterval: 1, syncIntervalUnit: "days" }, 3, from);
    expect(times.map((d) => d.toISOString())).toEqual(["2026-03-02T10:15:00.000Z", "2026-03-03T10:15:00.000Z", "2026-03-04T10:15:00.000Z"]);
  });

  it("cron expressions run in the sync's time zone", () => {
    const utc = nextRunTimes({ scheduleType: "cron_expression", cronExpression: "0 9 * * *" }, 2, from);
    expect(utc.map((d) => d.toISOString())).toEqual(["2026-03-02T09:00:00.000Z", "2026-03-03T09:00:00.000Z"]);
    const paris = computeNextRunAt({ scheduleType: "cron_expression", cronExpression: "0 9 * * *", timezone: "Europe/Paris" }, from);
    expect(paris?.toISOString()).toBe("2026-03-02T08:00:00.000Z");
  });

  it("automated uses cron when given, else the interval", () => {
    expect(computeNextRunAt({ scheduleType: "automated", cronExpression: "*/10 * * * *", syncInterval: 1, syncIntervalUnit: "days" }, from)?.toISOString()).toBe(
      "2026-03-01T10:20:00.000Z",
    );
    expect(computeNextRunAt({ scheduleType: "automated", syncInterval: 1, syncIntervalUnit: "hours" }, from)?.toISOString()).toBe(
      "2026-03-01T11:15:00.000Z",
    );
  });

  it("validates cron expressions with a sentence", () => {
    expect(cronExpressionError("0 9 * * *")).toBeNull();
    expect(cronExpressionError("0 0 9 * * *")).toMatch(/5 fields/);
    expect(cronExpressionError("61 * * * *")).toMatch(/^The minute \(the 1st field\) "61" is not valid: use 0 to 59/);
    expect(cronExpressionError("0 9 * * *", "Mars/Olympus")).toMatch(/time zone/);
  });

  it("interval schedules stay on their grid when the scheduler is late", () => {
    const sync = { scheduleType: "interval" as const, syncInterval: 10, syncIntervalUnit: "minutes" as const, nextRunAt: new Date("2026-03-01T10:00:00.000Z") };
    expect(advanceNextRunAt(sync, new Date("2026-03-01T10:25:00.000Z"))?.toISOString()).toBe("2026-03-01T10:30:00.000Z");
  });
});

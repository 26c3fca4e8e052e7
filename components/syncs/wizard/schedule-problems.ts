// The schedule form's own words. The API names its fields ("must be greater than 0 when schedule_type
// is interval"), which suits a program; a person at the Schedule step reads what is wrong with the
// box in front of them and what to type instead, under that box.
import { cronExpressionError, isValidTimezone } from "@/lib/sync-rules/schedule";

/** The API's largest sync_interval (lib/validation/syncs.ts). */
const MAX_INTERVAL = 1_000_000;
const MAX_CRON_LENGTH = 200;

/** The schedule fields a schedule type may leave unused: checked only while the type runs on them. */
export type ScheduleField = "sync_interval" | "sync_interval_unit" | "cron_expression" | "timezone";

export interface ScheduleValues {
  sync_interval?: number | null;
  sync_interval_unit?: string | null;
  cron_expression?: string | null;
  timezone?: string | null;
}

/** What is wrong with one schedule field the chosen type runs on, as a sentence; null when it is fine. */
export function scheduleFieldProblem(field: ScheduleField, s: ScheduleValues): string | null {
  switch (field) {
    case "sync_interval": {
      const n = s.sync_interval;
      const unit = s.sync_interval_unit ?? "hours";
      if (n === null || n === undefined || Number.isNaN(n)) return `Enter how many ${unit} to wait between runs: a whole number, 1 or more.`;
      if (!Number.isInteger(n)) return `Enter a whole number of ${unit}, such as 2; for less than one ${unit.replace(/s$/, "")}, pick a smaller unit.`;
      if (n < 1) return `Enter 1 or more: a sync runs at most once every 1 ${unit.replace(/s$/, "")}.`;
      if (n > MAX_INTERVAL) return `Enter at most ${MAX_INTERVAL.toLocaleString("en-US")}, or pick a larger unit.`;
      return null;
    }
    case "sync_interval_unit":
      return s.sync_interval_unit ? null : "Choose minutes, hours, days or weeks.";
    case "cron_expression": {
      const cron = s.cron_expression?.trim() ?? "";
      if (!cron) return 'Enter a cron expression of 5 fields, such as "0 * * * *" for every hour on the hour.';
      if (cron.length > MAX_CRON_LENGTH) return `A cron expression is at most ${MAX_CRON_LENGTH} characters; this one has ${cron.length}.`;
      // The time zone's own problem is shown under the time zone.
      return cronExpressionError(cron, s.timezone && isValidTimezone(s.timezone) ? s.timezone : "UTC");
    }
    case "timezone":
      return !s.timezone || isValidTimezone(s.timezone) ? null : `"${s.timezone}" is not a time zone this browser knows: choose one from the list.`;
  }
}

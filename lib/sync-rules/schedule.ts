// When does a sync run next? manual: never on its own; interval: fixed steps (weeks are real 7-day
// steps); cron_expression: a 5-field expression in the sync's time zone (croner); automated: the cron
// expression when given, else the interval. Disabled or deleted syncs have no next run.
import { Cron } from "croner";
import type { ScheduleType, SyncIntervalUnit, SyncStatus } from "@/lib/generated/prisma/enums";

export interface ScheduleSpec {
  scheduleType: ScheduleType;
  syncInterval?: number | null;
  syncIntervalUnit?: SyncIntervalUnit | null;
  cronExpression?: string | null;
  /** IANA time zone for cron expressions; default UTC. */
  timezone?: string | null;
}

export interface SchedulableSync extends ScheduleSpec {
  status?: SyncStatus;
  deletedAt?: Date | null;
}

export const INTERVAL_UNIT_MS: Readonly<Record<SyncIntervalUnit, number>> = {
  minutes: 60_000,
  hours: 3_600_000,
  days: 86_400_000,
  weeks: 7 * 86_400_000,
};

/** The API's snake_case body → a ScheduleSpec (for the console's preview of next run times). */
export function scheduleSpecFromApi(body: {
  schedule_type: ScheduleType;
  sync_interval?: number | null;
  sync_interval_unit?: SyncIntervalUnit | null;
  cron_expression?: string | null;
  timezone?: string | null;
}): ScheduleSpec {
  return {
    scheduleType: body.schedule_type,
    syncInterval: body.sync_interval,
    syncIntervalUnit: body.sync_interval_unit,
    cronExpression: body.cron_expression,
    timezone: body.timezone,
  };
}

export function isValidTimezone(timezone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: timezone });
    return true;
  } catch {
    return false;
  }
}

/** The five fields of a cron expression, in order: what each is called and what it may hold. */
const CRON_FIELDS = [
  { name: "minute", allowed: "0 to 59" },
  { name: "hour", allowed: "0 to 23" },
  { name: "day-of-month", allowed: "1 to 31 (or L for the last day)" },
  { name: "month", allowed: "1 to 12 or JAN to DEC" },
  { name: "day-of-week", allowed: "0 to 7 (0 and 7 are Sunday) or SUN to SAT" },
] as const;

const ORDINALS = ["1st", "2nd", "3rd", "4th", "5th"];

const parses = (expression: string, timezone: string): boolean => {
  try {
    new Cron(expression, { timezone, paused: true });
    return true;
  } catch {
    return false;
  }
};

/**
 * Why a cron expression cannot be used, as a sentence a person can act on (which field is wrong and
 * what it may hold); null when it is fine.
 */
export function cronExpressionError(expression: string, timezone = "UTC"): string | null {
  const fields = expression.trim().split(/\s+/).filter(Boolean);
  if (fields.length !== 5) {
    const seconds = fields.length === 6 ? " A seconds field is not supported: remove the first one." : "";
    return `A cron expression has 5 fields separated by spaces (minute hour day-of-month month day-of-week), such as "0 9 * * 1" for 09:00 every Monday; "${expression.trim()}" has ${fields.length}.${seconds}`;
  }
  if (!isValidTimezone(timezone)) return `"${timezone}" is not a known time zone (use an IANA name such as Europe/Paris).`;
  if (parses(fields.join(" "), timezone)) return null;
  // The first field that is wrong on its own, the others left as "every" (*).
  const bad = fields.findIndex((value, i) => !parses(fields.map((f, j) => (j === i ? f : "*")).join(" "), timezone));
  const forms = "* (every), a list such as 1,15, a range such as 1-5 or a step such as */15";
  if (bad >= 0) {
    const { name, allowed } = CRON_FIELDS[bad];
    return `The ${name} (the ${ORDINALS[bad]} field) "${fields[bad]}" is not valid: use ${allowed}, or ${forms}.`;
  }
  return `The cron expression "${expression.trim()}" is not valid: each field holds a number, or ${forms}.`;
}

/** Which rule drives the schedule: automated uses the cron expression when set, else the interval. */
function effectiveRule(spec: ScheduleSpec): "manual" | "interval" | "cron" {
  switch (spec.scheduleType) {
    case "manual":
      return "manual";
    case "interval":
      return "interval";
    case "cron_expression":
      return "cron";
    case "automated":
      return spec.cronExpression && spec.cronExpression.trim() !== "" ? "cron" : "interval";
  }
}

function intervalMs(spec: ScheduleSpec): number | null {
  if (!spec.syncInterval || spec.syncInterval <= 0 || !spec.syncIntervalUnit) return null;
  return spec.syncInterval * INTERVAL_UNIT_MS[spec.syncIntervalUnit];
}

function cronOf(spec: ScheduleSpec): Cron | null {
  const expression = spec.cronExpression?.trim();
  if (!expression) return null;
  const timezone = spec.timezone || "UTC";
  if (cronExpressionError(expression, timezone)) return null;
  return new Cron(expression, { timezone, paused: true });
}

/** Up to `n` future run times strictly after `from`; empty for manual or incomplete schedules. */
export function nextRunTimes(spec: ScheduleSpec, n: number, from: Date = new Date()): Date[] {
  const rule = effectiveRule(spec);
  if (rule === "manual" || n <= 0) return [];
  if (rule === "interval") {
    const step = intervalMs(spec);
    if (!step) return [];
    return Array.from({ length: n }, (_, i) => new Date(from.getTime() + step * (i + 1)));
  }
  const cron = cronOf(spec);
  return cron ? cron.nextRuns(n, from) : [];
}

/** The sync's next_run_at after `from`; null when it does not run on its own. */
export function computeNextRunAt(sync: SchedulableSync, from: Date = new Date()): Date | null {
  if (sync.status === "disabled" || sync.deletedAt) return null;
  return nextRunTimes(sync, 1, from)[0] ?? null;
}

/**
 * The next slot after a due run: interval schedules stay on their grid (previous slot + k steps)
 * so runs do not drift by the scheduler's latency; cron schedules take the next match after now.
 */
export function advanceNextRunAt(sync: SchedulableSync & { nextRunAt?: Date | null }, now: Date = new Date()): Date | null {
  if (sync.status === "disabled" || sync.deletedAt) return null;
  const step = effectiveRule(sync) === "interval" ? intervalMs(sync) : null;
  if (step && sync.nextRunAt && sync.nextRunAt.getTime() <= now.getTime()) {
    const behind = now.getTime() - sync.nextRunAt.getTime();
    return new Date(sync.nextRunAt.getTime() + (Math.floor(behind / step) + 1) * step);
  }
  return computeNextRunAt(sync, now);
}

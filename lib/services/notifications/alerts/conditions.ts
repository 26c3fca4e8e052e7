// What each alert condition says about an ended run, or about a sync at a moment (docs/alerts.md).
// Pure: the evaluator (evaluate.ts) feeds it facts read from the tables. `undefined` means "this
// says nothing", which keeps the rule's state as it is (a canceled run neither fires nor resolves).
import type { AlertCondition } from "@/lib/generated/prisma/enums";
import { runOutcome, type OutcomeFacts } from "@/lib/sync-rules/run-outcome";
import { THRESHOLD_UNITS } from "@/lib/validation/alerts";

export interface RuleFacts {
  condition: AlertCondition;
  threshold: number | null;
}

export interface EndedRunFacts extends OutcomeFacts {
  total_rows: number;
  started_at: Date | null;
  finished_at: Date | null;
}

const minutesBetween = (from: Date, to: Date): number => (to.getTime() - from.getTime()) / 60_000;

/** Whether the rule's condition holds after this general run ended; undefined: the run tells nothing. */
export function breachAfterRun(rule: RuleFacts, run: EndedRunFacts): boolean | undefined {
  const outcome = runOutcome(run);
  if (outcome === "canceled" || outcome === "running" || outcome === "needs_approval") return undefined;
  const failed = outcome === "failed";
  const threshold = rule.threshold ?? 0;
  switch (rule.condition) {
    case "run_failed":
      return failed;
    case "rejected_rows_percent":
      // A run that failed before sending anything says nothing about rejections.
      if (run.total_rows === 0) return failed ? undefined : false;
      return (run.failed_rows / run.total_rows) * 100 > threshold;
    case "rejected_rows":
      if (run.total_rows === 0 && failed) return undefined;
      return run.failed_rows > threshold;
    case "rows_changed":
      if (run.total_rows === 0 && failed) return undefined;
      return run.total_rows > threshold;
    case "run_duration":
      if (!run.started_at || !run.finished_at) return undefined;
      return minutesBetween(run.started_at, run.finished_at) > threshold;
    case "sync_not_succeeded":
      // A success resolves it at once; a failure leaves the clock to the periodic check.
      return failed ? undefined : false;
    case "live_lag_bytes":
    case "live_lag_seconds":
      // A rolling run's end says nothing about lag: the periodic check measures it.
      return undefined;
  }
}

/** What the periodic check knows of a live sync's lag; null where it could not be measured. */
export interface LagFacts {
  bytes: number | null;
  seconds: number | null;
}

/** live_lag_bytes / live_lag_seconds now; undefined when that lag is unknown (the source did not answer). */
export function lagBreach(rule: RuleFacts, lag: LagFacts): boolean | undefined {
  const value = rule.condition === "live_lag_bytes" ? lag.bytes : rule.condition === "live_lag_seconds" ? lag.seconds : null;
  if (value === null) return undefined;
  return value > (rule.threshold ?? 0);
}

/** sync_not_succeeded at `now`: the last success (else the sync's creation) is older than the threshold. */
export function staleBreach(rule: RuleFacts, lastSuccessOrCreation: Date, now: Date): boolean {
  return minutesBetween(lastSuccessOrCreation, now) > (rule.threshold ?? 0);
}

/** run_duration while the run still runs: it fires before the run ends (it cannot resolve before). */
export function runningTooLong(rule: RuleFacts, startedAt: Date, now: Date): boolean {
  return minutesBetween(startedAt, now) > (rule.threshold ?? 0);
}

const number = (n: number) => n.toLocaleString("en-US", { maximumFractionDigits: 2 });

/** The condition in words: "a run failed", "rejected rows above 5%". */
export function describeCondition(rule: RuleFacts): string {
  const t = number(rule.threshold ?? 0);
  const unit = THRESHOLD_UNITS[rule.condition];
  const minutes = unit === "minutes" && rule.threshold === 1 ? "minute" : "minutes";
  switch (rule.condition) {
    case "run_failed":
      return "a run failed";
    case "rejected_rows_percent":
      return `rejected rows above ${t}% of a run's rows`;
    case "rejected_rows":
      return `more than ${t} rejected rows in a run`;
    case "run_duration":
      return `a run took longer than ${t} ${minutes}`;
    case "rows_changed":
      return `a run changed more than ${t} rows`;
    case "sync_not_succeeded":
      return `no successful run for ${t} ${minutes}`;
    case "live_lag_bytes":
      return `a live sync's replication slot holds more than ${t} bytes of the source's WAL`;
    case "live_lag_seconds":
      return `a live sync trails its source by more than ${t} ${rule.threshold === 1 ? "second" : "seconds"}`;
  }
}

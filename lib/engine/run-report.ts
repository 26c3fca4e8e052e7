// The end of an attempt: the run's final status (docs/architecture.md), the sync's status after it, and the
// timings. Timings and the sync's status are written before the run's status: whoever sees the run
// end sees them too.
import "server-only";
import type { RunAttempt, RunResult } from "./run-attempt";
import { CANCELED_ERROR, DISABLED_ERROR, finishRun, setRunStatus, writeTimings } from "./run-store";

export async function reportRun(attempt: RunAttempt): Promise<RunResult> {
  const { ctx, strategy } = attempt;
  const runId = ctx.run.id;
  const stop = attempt.stopReason();
  const failure = attempt.failed;
  if (stop === "shutdown" && !failure) return "requeue";
  const pause = attempt.pause;
  if (stop === "waiting" && !failure && pause) {
    attempt.timings.wait += pause.waitMs;
    await writeTimings(runId, attempt.roundedTimings());
    return "waiting";
  }
  if (stop === "approval" && !failure) {
    // The guard held it (plan/guard-step.ts already set needs_approval): no outcome, the sync's status stays.
    await writeTimings(runId, attempt.roundedTimings());
    return "needs_approval";
  }
  if (stop === "canceled" || stop === "disabled") {
    // Usually already failed by whoever stopped it (cancel, disable); then only the timings change.
    // The sync keeps its status: a stop says nothing about its health.
    await writeTimings(runId, attempt.roundedTimings());
    await setRunStatus(attempt.pool, runId, "failed", { error: stop === "canceled" ? CANCELED_ERROR : DISABLED_ERROR, finished: true });
    return "canceled";
  }
  const { successfulRows, failedRows } = attempt.totals;
  let error: string | null = null;
  if (failure) error = ctx.scrub(describeFailure(failure));
  // Records the write mode skipped are no failure: a run that only skipped succeeded.
  else if (failedRows > 0 && successfulRows === 0) error = `All ${failedRows} records failed; see the run's records for each error.`;
  await writeTimings(runId, attempt.roundedTimings());
  // The run's end and the sync's status after it, together; a cancel that got there first wins. Its
  // event (run.succeeded, run.failed) commits with it: alerts, webhooks and sequences hear it (events.ts).
  if (!(await finishRun(runId, error, strategy.tracksSync ? ctx.sync.id : null))) return "canceled";
  return error ? "failed" : "success";
}

function describeFailure(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.length > 2000 ? `${message.slice(0, 2000)}…` : message;
}

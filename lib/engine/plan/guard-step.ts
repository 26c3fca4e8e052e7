// The guard's step of a general run, before its first write: when the sync has limits in force, the
// run plans (the same planner as POST /syncs/{id}/plan), keeps the counts in sync_runs.plan and, when
// a limit is exceeded, stops as needs_approval with the numbers in its error, freeing its worker.
// An approved run (approved_by set) and a run that already planned (a resumed attempt) go straight on.
import "server-only";
import { approvalMessage, guardInForce } from "@/lib/sync-config/guard";
import type { RunAttempt } from "../run-attempt";
import { holdRunForApproval, saveRunPlan } from "../run-store";
import type { PendingFilter } from "../unchanged-filter";
import { planRun } from "./planner";

/** True when the attempt must stop here (held for approval, or ended meanwhile). */
export async function holdsForApproval(attempt: RunAttempt, unchanged: PendingFilter): Promise<boolean> {
  const { ctx } = attempt;
  const { run } = ctx;
  if (run.syncRunType !== "general" || run.approvedBy !== null || run.plan !== null || !guardInForce(ctx.sync)) return false;
  const started = performance.now();
  const { samples: _samples, ...plan } = await planRun(ctx, { signal: attempt.signal, unchanged });
  // The plan's read is the run's reading time too.
  attempt.timings.query += performance.now() - started;
  if (plan.exceeded.length === 0) {
    await saveRunPlan(run.id, plan);
    return false;
  }
  attempt.stop((await holdRunForApproval(run.id, plan, approvalMessage(plan.exceeded))) ? "approval" : "canceled");
  return true;
}

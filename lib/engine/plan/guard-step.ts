// The guard's step of a general run, before its first write: when the sync has limits in force, the
// run plans (the same planner as POST /syncs/{id}/plan), keeps the plan in sync_runs.plan and, when
// a limit is exceeded, stops as needs_approval with the numbers in its error, freeing its worker.
// An approved run plans again too: it goes on only within the plan that was approved (approval.ts),
// else it is held again saying what changed. A run that already planned (a resumed attempt) goes
// straight on; its deletes are still checked when it makes them (delete-detection.ts), and an
// approved run's updates as it writes them (UpdateBinding in approval.ts, set in run-execution.ts).
// A held run keeps a few sample rows per action with its plan, for the person who approves it
// (GET …/sync_runs/{id}/plan); approving drops them (run-store.ts:approveHeldRun).
// A sync that tracks no row yet, whose limits are all measured against tracked rows (a SaaS
// destination's default change percentage), skips the plan: it could not be held, and the plan is a
// whole read of the model before the run's own.
import "server-only";
import { pgPool } from "@/lib/db/client";
import { approvalMessage, guardInForce, onlyTrackedLimits } from "@/lib/sync-rules/guard";
import type { SyncRun } from "@/lib/generated/prisma/client";
import type { RunAttempt } from "../run-attempt";
import { holdRunForApproval, saveRunPlan } from "../run-store";
import { tracksAnything } from "../state-blocks";
import type { PendingFilter } from "../unchanged-filter";
import { beyondApproval, isApprovedPlan, reapprovalMessage, type StoredPlan } from "./approval";
import { planRun } from "./planner";

/** Sample rows per action a held run keeps for its approver: what the plan dialog shows by default. */
export const HELD_PLAN_SAMPLES = 5;

/** True when the attempt must stop here (held for approval, or ended meanwhile). */
export async function holdsForApproval(attempt: RunAttempt, unchanged: PendingFilter): Promise<boolean> {
  const { ctx } = attempt;
  const { run } = ctx;
  if (run.syncRunType !== "general" || !guardInForce(ctx.sync)) return false;
  const stored = (run.plan ?? null) as StoredPlan | null;
  // Planned already: a resumed attempt of a run that planned (an approved one planned after its approval).
  if (stored !== null && stored.planned_at !== undefined) return false;
  if (onlyTrackedLimits(ctx.sync) && !(await tracksRows(ctx.sync.id))) return false;
  const approval = stored !== null && isApprovedPlan(stored.approval) ? stored.approval : null;
  const started = performance.now();
  const { samples, ...plan } = await planRun(ctx, { signal: attempt.signal, unchanged, sampleSize: HELD_PLAN_SAMPLES });
  // The plan's read is the run's reading time too.
  attempt.timings.query += performance.now() - started;
  const beyond = approval && plan.exceeded.length > 0 ? beyondApproval(approval, plan) : [];
  if (plan.exceeded.length === 0 || (approval !== null && beyond.length === 0)) {
    // Going on, its own keys are of no further use (only a held plan's are approved): every guarded
    // run keeps a plan, so it stays small. The approved plan stays beside it: the delete step
    // (delete-detection.ts) and the writes of updates (UpdateBinding) bind to it too.
    const { changes: _changes, ...kept } = plan;
    const saved: StoredPlan = approval ? { ...kept, approval } : kept;
    await saveRunPlan(run.id, saved);
    run.plan = saved as unknown as SyncRun["plan"];
    return false;
  }
  const message = approval ? reapprovalMessage(beyond, plan.exceeded) : approvalMessage(plan.exceeded);
  attempt.stop((await holdRunForApproval(run.id, { ...plan, samples }, message)) ? "approval" : "canceled");
  return true;
}

/** Whether the sync tracks any row (a row or a state block): index probes, not a count. */
async function tracksRows(syncId: number): Promise<boolean> {
  return tracksAnything(pgPool(), syncId);
}

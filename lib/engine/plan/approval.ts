// What an approval binds to. A person approves the plan they were shown (its counts and the keys it
// would update and delete), not whatever the run finds later: the approved run plans again and goes
// on only while it stays within that plan (fewer is fine); beyond it, it is held again with a
// sentence saying what changed. Past its plan the run stays bound: each update is checked as it is
// about to be written (UpdateBinding) and the deletes before the first of them (deleteStoppers), as
// the source may change after the plan and a resumed attempt does not plan again. Pure: the guard step
// (guard-step.ts), the send stages (send-batch.ts, pass-through/extract.ts) and the delete step
// (delete-detection.ts) decide with it.
import { guardViolations, type EffectiveGuard } from "@/lib/sync-rules/guard";
import type { ChangeKeys } from "./change-keys";
import type { PlanCounts, RunPlan } from "./planner";

/** The plan a person approved, as sync_runs.plan keeps it under `approval` once approved. */
export type ApprovedPlan = Pick<RunPlan, "planned_at" | "counts" | "tracked" | "full_read" | "changes">;

/** sync_runs.plan as stored: a plan, an approved plan waiting for its run to plan again, or both. */
export interface StoredPlan extends Partial<RunPlan> {
  approval?: ApprovedPlan;
}

const n = (v: number) => v.toLocaleString("en-US");
const keyed = (c: PlanCounts) => c.read - c.duplicate - c.blank_key;
const NOUN = { update: ["update", "updates"], delete: ["delete", "deletes"] } as const;
const VERB = { update: "update", delete: "delete" } as const;

/** Whether a stored value is an approved plan this code can bind to (an older approval has no keys). */
export function isApprovedPlan(v: unknown): v is ApprovedPlan {
  if (v === null || typeof v !== "object") return false;
  const p = v as Partial<ApprovedPlan>;
  const keys = (k: unknown) => k !== null && typeof k === "object" && typeof (k as ChangeKeys).count === "number" && typeof (k as ChangeKeys).digest === "string";
  return typeof p.counts === "object" && p.counts !== null && typeof p.tracked === "number" && keys(p.changes?.update) && keys(p.changes?.delete);
}

/** Sentences for one action's keys now against the approved ones; empty when now is within. */
function beyondKeys(action: "update" | "delete", now: ChangeKeys, approved: ChangeKeys): string[] {
  const [one, many] = NOUN[action];
  const noun = (c: number) => (c === 1 ? one : many);
  if (now.count > approved.count) return [`${n(now.count)} ${noun(now.count)} now, ${n(approved.count)} approved`];
  if (now.count === 0) return [];
  if (approved.keys !== null && now.keys !== null) {
    const allowed = new Set(approved.keys);
    const outside = now.keys.filter((k) => !allowed.has(k));
    if (outside.length === 0) return [];
    const shown = outside.slice(0, 3).map((k) => JSON.stringify(k)).join(", ");
    return [`it would ${VERB[action]} ${n(outside.length)} row${outside.length === 1 ? "" : "s"} the approved plan did not (key ${shown}${outside.length > 3 ? ", …" : ""})`];
  }
  // Too many keys to keep one by one: only the very set that was approved goes on.
  if (now.count === approved.count && now.digest === approved.digest) return [];
  return [`${n(now.count)} ${noun(now.count)} now, of other rows than the ${n(approved.count)} approved (too many to compare one by one, so only the same rows may go on)`];
}

/**
 * What takes the plan beyond the approved one, as sentences ("10 deletes now, 3 approved"); empty
 * when it may go on under the approval. Inserts are not bound: they add rows the sync never wrote
 * (new rows arriving is a source's normal life) and no limit counts them.
 */
export function beyondApproval(approved: ApprovedPlan, now: Pick<RunPlan, "counts" | "tracked" | "full_read" | "changes">): string[] {
  const out: string[] = [];
  if (now.full_read && now.tracked > 0 && keyed(now.counts) === 0 && keyed(approved.counts) > 0) {
    out.push(`the model returns no rows now, ${n(keyed(approved.counts))} when it was approved`);
  }
  out.push(...beyondKeys("delete", now.changes.delete, approved.changes.delete));
  out.push(...beyondKeys("update", now.changes.update, approved.changes.update));
  return out;
}

/** The run's error when it is held again: what changed, then the limits it breaks. */
export function reapprovalMessage(beyond: readonly string[], exceeded: readonly string[]): string {
  return `Stopped before writing anything: the source changed after approval: ${beyond.join("; ")}. It ${exceeded.join("; ")}. Approve the run again to go on, or cancel it.`;
}

/**
 * The check a run makes just before it deletes, with the deletes it found after its read (the source
 * may have changed since its plan): the sentences that stop it, empty when it may delete. Against the
 * sync's limits (the delete limit, and the empty-extract check as "every tracked row"), and when the
 * run was approved, against the approved deletes instead.
 */
export function deleteStoppers(guard: EffectiveGuard, tracked: number, deletes: ChangeKeys, approval: ApprovedPlan | null): string[] {
  if (deletes.count === 0) return [];
  const violations = guardViolations(guard, { tracked, keyed: 1, update: 0, delete: deletes.count, fullRead: true });
  if (guard.refuse_empty_extract && tracked > 0 && deletes.count >= tracked) {
    violations.push(`would delete every one of the ${n(tracked)} tracked rows (the model returned none of them), which is refused`);
  }
  if (violations.length === 0) return [];
  if (approval === null) return violations;
  return beyondKeys("delete", deletes, approval.changes.delete);
}

/**
 * An approved run's updates against the approved ones, one at a time as the run is about to write
 * them: a key the approved plan did not update (when its keys were kept one by one), or more updates
 * than approved (always; with only a digest, the one check that can be made before the end), stops
 * the run. Fewer is fine. Counts within one attempt: a resumed attempt finds the rows its predecessor
 * updated unchanged.
 */
export class UpdateBinding {
  private admitted = 0;
  private readonly allowed: ReadonlySet<string> | null;

  constructor(private readonly approved: ChangeKeys) {
    this.allowed = approved.keys === null ? null : new Set(approved.keys);
  }

  /** The sentence that stops the run at this update; null when it may be written. */
  refusal(key: string): string | null {
    if (this.allowed !== null && !this.allowed.has(key)) return `it would update row ${JSON.stringify(key)} the approved plan did not`;
    if (++this.admitted > this.approved.count) return `it would update more rows than the ${n(this.approved.count)} approved`;
    return null;
  }

  /** As refusal, for the run: throws its error (updateRefusedMessage) instead of returning the sentence. */
  admit(key: string): void {
    const refusal = this.refusal(key);
    if (refusal !== null) throw new Error(updateRefusedMessage(refusal));
  }
}

/** The binding a run's stored plan calls for: null without an approval (no per-row cost then). */
export function updateBindingFor(plan: unknown): UpdateBinding | null {
  const approval = plan !== null && typeof plan === "object" ? (plan as StoredPlan).approval : undefined;
  return isApprovedPlan(approval) ? new UpdateBinding(approval.changes.update) : null;
}

/** The run's error when an update is refused; what it wrote before stays, as with deletes. */
export function updateRefusedMessage(refusal: string): string {
  return `Nothing more was written: the source changed after approval: ${refusal}. Run the sync again: it plans again, and its limits hold it for approval if it still would.`;
}

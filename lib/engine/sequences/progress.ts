// The progress of a sequence run, derived when it is read from its steps, their runs and the steps
// upstream of them. Pure (no server imports), so the rule is unit-tested on its own.
import type { SyncRunStatus } from "@/lib/generated/prisma/enums";
import type { SequenceStatus, StepState } from "@/lib/sync-rules/sequence-statuses";

/** What the engine stored on a step (sequence_run_steps.state). */
export type StoredStepState = "waiting" | "triggered" | "skipped" | "blocked";

export { SEQUENCE_STATUSES, SETTLED_SEQUENCE_STATUSES, STEP_STATES, type SequenceStatus, type StepState } from "@/lib/sync-rules/sequence-statuses";

export interface StepFacts {
  syncId: number;
  upstreamSyncIds: readonly number[];
  state: StoredStepState;
  reason: string | null;
  runStatus: SyncRunStatus | null;
  /** The syncs waiting on this step's successful run were looked at. */
  dependentsChecked: boolean;
  /** The sync was deleted since. */
  syncDeleted: boolean;
}

export interface StepProgress {
  state: StepState;
  reason: string | null;
  /** Waiting only on runs that wait for approval (or waiting for approval itself): nothing moves without a person. */
  held?: boolean;
}

function fromRun(status: SyncRunStatus): StepState {
  if (status === "success") return "success";
  if (status === "failed" || status === "canceled") return "failed";
  if (status === "needs_approval") return "needs_approval";
  return "running";
}

const UNSETTLED: ReadonlySet<StepState> = new Set(["waiting", "running", "needs_approval"]);

/**
 * Each step's state. A step with a run shows the run's; one the engine skipped or blocked shows
 * skipped or not_run. A waiting step stays waiting while any upstream step in the sequence may still
 * start it (unsettled, or succeeded and its dependents not looked at yet); after that it will never
 * start: not_run when an upstream did not succeed (or the rule said no), skipped when every
 * upstream in the sequence was skipped or the sync was deleted.
 */
export function stepProgress(steps: readonly StepFacts[]): Map<number, StepProgress> {
  const bySync = new Map(steps.map((s) => [s.syncId, s]));
  const done = new Map<number, StepProgress>();
  const visiting = new Set<number>();

  const of = (step: StepFacts): StepProgress => {
    const known = done.get(step.syncId);
    if (known) return known;
    if (visiting.has(step.syncId)) return { state: "not_run", reason: "the sequence's steps wait on each other" };
    visiting.add(step.syncId);
    const result = derive(step);
    visiting.delete(step.syncId);
    done.set(step.syncId, result);
    return result;
  };

  const derive = (step: StepFacts): StepProgress => {
    if (step.runStatus !== null) return { state: fromRun(step.runStatus), reason: null, held: step.runStatus === "needs_approval" };
    if (step.state === "skipped") return { state: "skipped", reason: step.reason };
    if (step.state === "blocked") return { state: "not_run", reason: step.reason };
    if (step.state === "triggered") return { state: "not_run", reason: "its run was removed" };
    const upstream = step.upstreamSyncIds.flatMap((id) => {
      const u = bySync.get(id);
      return u ? [{ step: u, progress: of(u) }] : [];
    });
    if (upstream.length === 0) return { state: "not_run", reason: step.reason ?? "nothing in this sequence starts it" };
    const moving = (u: (typeof upstream)[number]) =>
      u.progress.state === "running" || (u.progress.state === "waiting" && !u.progress.held) || (u.progress.state === "success" && !u.step.dependentsChecked);
    if (upstream.some(moving)) return { state: "waiting", reason: step.reason };
    if (upstream.some((u) => UNSETTLED.has(u.progress.state))) return { state: "waiting", reason: step.reason, held: true };
    if (step.syncDeleted) return { state: "skipped", reason: `sync ${step.syncId} was deleted` };
    const failed = upstream.find((u) => u.progress.state === "failed" || u.progress.state === "not_run");
    if (failed) return { state: "not_run", reason: `upstream sync ${failed.step.syncId} did not succeed` };
    if (upstream.every((u) => u.progress.state === "skipped")) return { state: "skipped", reason: "its upstream syncs in this sequence were skipped" };
    return { state: "not_run", reason: step.reason ?? "its upstream syncs did not all succeed" };
  };

  for (const s of steps) of(s);
  return done;
}

/**
 * The sequence's status: running while any step runs or waits on something that moves by itself;
 * then needs_approval when what is left waits for a run's approval; then failed when any step failed
 * or will not run; else success (skipped steps do not fail a sequence).
 */
export function sequenceStatus(progress: ReadonlyMap<number, StepProgress>): SequenceStatus {
  const all = [...progress.values()];
  const states = all.map((p) => p.state);
  if (all.some((p) => p.state === "running" || (p.state === "waiting" && !p.held))) return "running";
  if (states.includes("needs_approval")) return "needs_approval";
  if (states.some((s) => s === "failed" || s === "not_run")) return "failed";
  return "success";
}

// The trigger rule: whether a sync that runs after others starts when one of its upstream syncs has
// just succeeded. Pure; the engine (./advance.ts) reads the facts and acts on the answer. The rule,
// as docs/orchestration.md states it:
//
//   A sync D starts when an upstream run succeeds and
//   1. D is enabled (a disabled D is skipped: not run, and the syncs after it are not started by it);
//   2. every enabled upstream of D has a latest general run, and it succeeded (disabled upstreams
//      are left out of the rule);
//   3. at least one of those successes finished after D's latest general run was created (or D has
//      never run): there is something new to run after;
//   4. D has no active general run.
import type { SyncRunStatus } from "@/lib/generated/prisma/enums";

export interface UpstreamFacts {
  syncId: number;
  disabled: boolean;
  /** The upstream's latest general run (by creation), or null when it has none. */
  latestRun: { id: number; status: SyncRunStatus; finishedAt: Date | null } | null;
}

export interface DependentFacts {
  syncId: number;
  disabled: boolean;
  /** When the dependent's latest general run was created, or null when it has none. */
  lastRunCreatedAt: Date | null;
  /** Its active general run, if any. */
  activeRunId: number | null;
}

export type TriggerDecision =
  | { action: "start" }
  /** Never this time: the dependent is disabled. */
  | { action: "skip"; reason: string }
  /** Not yet: an upstream has not succeeded (a later success may start it). */
  | { action: "wait"; reason: string }
  /** Already started after these successes (by another upstream's success, or by hand). */
  | { action: "started"; reason: string }
  /** Running a run that began before these successes: not started a second time. */
  | { action: "busy"; reason: string };

function upstreamProblem(u: UpstreamFacts): string | null {
  if (!u.latestRun) return `sync ${u.syncId} has not run yet`;
  if (u.latestRun.status !== "success") return `the latest run of sync ${u.syncId} (run ${u.latestRun.id}) is ${u.latestRun.status}`;
  return null;
}

export function decideTrigger(dependent: DependentFacts, upstreams: readonly UpstreamFacts[]): TriggerDecision {
  if (dependent.disabled) return { action: "skip", reason: `sync ${dependent.syncId} is disabled` };
  const enabled = upstreams.filter((u) => !u.disabled);
  if (enabled.length === 0) return { action: "wait", reason: `every upstream of sync ${dependent.syncId} is disabled` };
  const problems = enabled.map(upstreamProblem).filter((p): p is string => p !== null);
  if (problems.length > 0) return { action: "wait", reason: `waiting for its upstreams: ${problems.join("; ")}` };
  const since = dependent.lastRunCreatedAt;
  const fresh = since === null || enabled.some((u) => (u.latestRun?.finishedAt?.getTime() ?? 0) > since.getTime());
  if (!fresh) return { action: "started", reason: `sync ${dependent.syncId} was started after its upstreams' latest successes` };
  if (dependent.activeRunId !== null) {
    return { action: "busy", reason: `sync ${dependent.syncId} was already running (run ${dependent.activeRunId}) when its upstreams succeeded; it was not started again` };
  }
  return { action: "start" };
}

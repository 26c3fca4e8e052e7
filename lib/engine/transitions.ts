// The one table of allowed status changes for sync runs and syncs (behaviour.md sections 6 and 7).
// Every status write in the engine goes through these functions; the SQL helpers turn the table into
// a conditional UPDATE so a concurrent change (cancel, disable) is never overwritten.
import type { SyncRunStatus, SyncStatus } from "@/lib/generated/prisma/enums";
import { Conflict } from "@/lib/errors";

export const RUN_STATUSES = [
  "pending",
  "started",
  "querying",
  "queued",
  "in_progress",
  "success",
  "paused",
  "failed",
  "canceled",
] as const satisfies readonly SyncRunStatus[];

export const SYNC_STATUSES = ["pending", "healthy", "failed", "disabled", "aborted"] as const satisfies readonly SyncStatus[];

/**
 * Runs: created pending → queued → started (a worker holds it) → querying/in_progress → terminal.
 * Paused: waiting for its destination (rate limit, Retry-After) with no worker; started again after.
 */
export const RUN_TRANSITIONS: Readonly<Record<SyncRunStatus, readonly SyncRunStatus[]>> = {
  pending: ["queued", "started", "canceled", "failed"],
  queued: ["started", "canceled", "failed"],
  // Back to queued: the worker holding it died and the run is handed to another worker.
  started: ["querying", "in_progress", "paused", "queued", "success", "failed", "canceled"],
  querying: ["in_progress", "paused", "queued", "success", "failed", "canceled"],
  in_progress: ["querying", "paused", "queued", "success", "failed", "canceled"],
  paused: ["started", "in_progress", "queued", "canceled", "failed"],
  success: [],
  failed: [],
  canceled: [],
};

/**
 * Syncs: created pending; a successful run makes it healthy (also from failed: the reference keeps it
 * failed, we do not); a failed run makes it failed; a canceled run aborted; disable/enable.
 */
export const SYNC_TRANSITIONS: Readonly<Record<SyncStatus, readonly SyncStatus[]>> = {
  pending: ["healthy", "failed", "aborted", "disabled"],
  healthy: ["failed", "aborted", "disabled"],
  failed: ["healthy", "aborted", "disabled"],
  aborted: ["healthy", "failed", "disabled"],
  disabled: ["pending"],
};

export const TERMINAL_RUN_STATUSES: readonly SyncRunStatus[] = ["success", "failed", "canceled"];
/** A run in one of these is held by a worker (or was, if the worker died). */
export const RUNNING_RUN_STATUSES: readonly SyncRunStatus[] = ["started", "querying", "in_progress"];
/** Not finished: blocks another general run of the same sync. A paused run waits in the queue, held by no worker. */
export const ACTIVE_RUN_STATUSES: readonly SyncRunStatus[] = ["pending", "queued", "paused", ...RUNNING_RUN_STATUSES];

/** Staying in the same non-terminal status (e.g. querying on every batch) is always allowed. */
export function canTransitionRun(from: SyncRunStatus, to: SyncRunStatus): boolean {
  if (from === to) return !TERMINAL_RUN_STATUSES.includes(from);
  return RUN_TRANSITIONS[from].includes(to);
}

/** Same status is a no-op (disabling a disabled sync is not an error). */
export function canTransitionSync(from: SyncStatus, to: SyncStatus): boolean {
  if (from === to) return true;
  return SYNC_TRANSITIONS[from].includes(to);
}

export function assertRunTransition(from: SyncRunStatus, to: SyncRunStatus): void {
  if (!canTransitionRun(from, to)) throw new Conflict(`A sync run cannot go from ${from} to ${to}.`);
}

export function assertSyncTransition(from: SyncStatus, to: SyncStatus): void {
  if (!canTransitionSync(from, to)) throw new Conflict(`A sync cannot go from ${from} to ${to}.`);
}

/** Statuses a run may be in for a change to `to`: the WHERE clause of a conditional UPDATE. */
export function runStatusesAllowing(to: SyncRunStatus): SyncRunStatus[] {
  return RUN_STATUSES.filter((from) => canTransitionRun(from, to));
}

/** The sync's status after a general run ends; undefined keeps it (a disabled sync stays disabled). */
export function syncStatusAfterRun(current: SyncStatus, outcome: "success" | "failed" | "canceled"): SyncStatus | undefined {
  const to: SyncStatus = outcome === "success" ? "healthy" : outcome === "failed" ? "failed" : "aborted";
  return canTransitionSync(current, to) ? to : undefined;
}

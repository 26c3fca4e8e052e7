// The one table of allowed status changes for sync runs and syncs (docs/architecture.md).
// Every status write goes through run-store.ts, which turns the table into a conditional UPDATE so a
// concurrent change (cancel, disable) is never overwritten. The status lists come from the schema's
// enums. No server imports: the console may use the lists.
import { SyncRunStatus, SyncStatus } from "@/lib/generated/prisma/enums";
import { Conflict } from "@/lib/errors";

export const RUN_STATUSES: readonly SyncRunStatus[] = Object.values(SyncRunStatus);
export const SYNC_STATUSES: readonly SyncStatus[] = Object.values(SyncStatus);

/**
 * What each run status means, and where it may go. A run is created pending (API) or queued, a
 * worker claims it (started) under the run's advisory lock, and it ends in one of the terminal ones.
 */
export const RUN_TRANSITIONS: Readonly<Record<SyncRunStatus, readonly SyncRunStatus[]>> = {
  /** Created, not yet on the queue. */
  pending: ["queued", "started", "canceled", "failed"],
  /** On the queue, waiting for a worker (also a run a graceful stop or the reaper handed back). */
  queued: ["started", "canceled", "failed"],
  /**
   * Claimed by a worker, which holds the run's lock. Back to queued: the worker stopped gracefully or
   * died and the run is handed to another worker.
   */
  started: ["querying", "in_progress", "paused", "queued", "needs_approval", "success", "failed", "canceled"],
  /**
   * Reading the model, nothing recorded yet in this attempt. → started: a worker claims a run whose
   * previous worker died while it was running (the lock is free).
   */
  querying: ["started", "in_progress", "paused", "queued", "needs_approval", "success", "failed", "canceled"],
  /**
   * At least one batch recorded in this attempt. → started: as for querying. → needs_approval: only a
   * live sync's rolling run, whose micro-batch would go over its sync's limits (live/live-guard.ts);
   * an ordinary run is held before its first write or never (plan/guard-step.ts).
   */
  in_progress: ["started", "querying", "paused", "queued", "needs_approval", "success", "failed", "canceled"],
  /**
   * Waiting for its destination (rate budget, Retry-After, backoff longer than
   * ENGINE_RELEASE_WAIT_SECONDS) with no worker: its job waits on the queue until `waiting_until`,
   * then a worker claims it again (started).
   */
  paused: ["started", "in_progress", "queued", "canceled", "failed"],
  /**
   * Stopped before its first write (a live rolling run: before a micro-batch's) because it would exceed its sync's blast-radius limits; holds no
   * worker. Approving queues it again (it then goes on within the approved plan); a cancel, or disabling or
   * deleting the sync, fails it like any run stopped from outside.
   */
  needs_approval: ["queued", "canceled", "failed"],
  /** Ended: every row read was handled and not every record failed. */
  success: [],
  /** Ended: an error, every record refused, canceled or disabled while running, or given up. */
  failed: [],
  /** Ended before it ran: its sync was disabled or deleted when a worker claimed it. */
  canceled: [],
};

/**
 * Syncs: created pending; a successful run makes it healthy (also from failed: the reference keeps it
 * failed, we do not); a failed run makes it failed; disable/enable. A canceled run leaves the sync's
 * status as it was: someone stopped it on purpose, which says nothing about the sync's health.
 * `aborted` stays a valid value (syncs set so earlier keep it until their next run ends).
 */
export const SYNC_TRANSITIONS: Readonly<Record<SyncStatus, readonly SyncStatus[]>> = {
  pending: ["healthy", "failed", "aborted", "disabled"],
  healthy: ["failed", "aborted", "disabled"],
  failed: ["healthy", "aborted", "disabled"],
  aborted: ["healthy", "failed", "disabled"],
  disabled: ["pending"],
};

/** Ended: no way out of these. */
export const TERMINAL_RUN_STATUSES: readonly SyncRunStatus[] = RUN_STATUSES.filter((s) => RUN_TRANSITIONS[s].length === 0);
/** A run in one of these is held by a worker (or was, if the worker died). */
export const RUNNING_RUN_STATUSES: readonly SyncRunStatus[] = [SyncRunStatus.started, SyncRunStatus.querying, SyncRunStatus.in_progress];
/** Not finished: blocks another general run of the same sync. A paused run waits in the queue, held by no worker. */
export const ACTIVE_RUN_STATUSES: readonly SyncRunStatus[] = RUN_STATUSES.filter((s) => !TERMINAL_RUN_STATUSES.includes(s));

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

/**
 * The sync's status after a general run ends; undefined keeps it (a disabled sync stays disabled; a
 * canceled run changes nothing).
 */
export function syncStatusAfterRun(current: SyncStatus, outcome: "success" | "failed" | "canceled"): SyncStatus | undefined {
  if (outcome === "canceled") return undefined;
  const to: SyncStatus = outcome === "success" ? "healthy" : "failed";
  return canTransitionSync(current, to) ? to : undefined;
}

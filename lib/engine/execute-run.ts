// Runs one sync run to its end in this worker: fetch it, take its lock, claim it, run the attempt
// (extract → diff → map → load → record, then report), and hand it back to the queue when it
// stopped for a shutdown or to wait for its destination. Cancel and disable arrive through the
// database: a light poll notices them, and connector calls still in flight after a short grace are
// abandoned (connector-calls.ts).
import "server-only";
import type { PoolClient } from "pg";
import { pgPool, prisma } from "@/lib/db/client";
import { db } from "@/lib/db/kysely";
import type { SyncRun } from "@/lib/generated/prisma/client";
import { logger } from "@/lib/logger";
import { loadRunContext, RunSetupError, type RunContext } from "./context";
import { runLockKey, tryLock, unlock } from "./locks";
import { RunAttempt, type RunResult } from "./run-attempt";
import { generalRun } from "./run-execution";
import { applySyncOutcome, claimRun, pauseRun, requeueRun, setRunStatus } from "./run-store";
import { engineSettings } from "./settings";
import { testRun } from "./test-run";
import { continueLive } from "./live/continue";
import { liveRun } from "./live/live-run";
import { TERMINAL_RUN_STATUSES } from "./transitions";

export type { RunResult } from "./run-attempt";

export interface ExecuteOptions {
  /**
   * Aborting with reason "shutdown" stops at a batch boundary and reports "requeue"; connector calls
   * still in flight after ENGINE_STOP_GRACE_SECONDS are abandoned.
   */
  signal?: AbortSignal;
}

/**
 * Returns "busy" when another live worker holds the run's lock, "over_share" when its workspace has
 * its share of runs running (WORKSPACE_MAX_ACTIVE_RUNS), "skipped" when it already ended.
 */
export async function executeRun(runId: number, options: ExecuteOptions = {}): Promise<RunResult> {
  const run = await prisma().syncRun.findUnique({ where: { id: runId } });
  if (!run || TERMINAL_RUN_STATUSES.includes(run.status)) return "skipped";
  return withRunLock(run, async (lock) => {
    const claimed = await claim(run);
    if (typeof claimed === "string") return claimed;
    // Started before (crash, graceful stop, pause): this attempt resumes it.
    const strategy = claimed.run.syncRunType === "test" ? testRun : claimed.sync.live ? liveRun : generalRun;
    const attempt = new RunAttempt(claimed, strategy, run.startedAt !== null);
    const result = await watched(attempt, lock, options, () => attempt.execute());
    return handBack(attempt, result);
  }).then(async (result) => {
    // A live sync's rolling run that ended well hands over to the next one at once.
    if (result === "success") await continueLive(run);
    return result;
  });
}

/** Holds the run's advisory lock on a dedicated connection while `fn` runs. */
interface RunLock {
  /** Calls `onLost` at once, or when the lock connection drops. */
  whenLost(onLost: () => void): void;
}

async function withRunLock(run: SyncRun, fn: (lock: RunLock) => Promise<RunResult>): Promise<RunResult> {
  const client: PoolClient = await pgPool().connect();
  const key = runLockKey(run);
  // The lock connection sits idle for the whole run: if the database drops it (restart, failover),
  // the lock is gone, so this attempt stops and hands the run back instead of racing another worker.
  // Without a listener the dropped connection's error would crash the whole worker process.
  let lost = false;
  let onLost = () => undefined as void;
  const onError = (err: Error) => {
    lost = true;
    logger.warn({ runId: run.id, err: err.message }, "lost the connection holding the run's lock; stopping the run");
    onLost();
  };
  client.on("error", onError);
  let locked = false;
  try {
    locked = await tryLock(client, key);
    if (!locked) return "busy";
    return await fn({
      whenLost(callback) {
        onLost = callback;
        if (lost) callback();
      },
    });
  } finally {
    if (locked && !lost) await unlock(client, key).catch(() => undefined);
    // The pool reuses the connection: the next run adds its own listener.
    client.off("error", onError);
    client.release(lost || undefined);
  }
}

/**
 * Under the lock: claims the run and loads what it needs. A run that must not run (sync disabled or
 * deleted, too many attempts, a broken setup) ends here with its result.
 */
async function claim(initial: SyncRun): Promise<RunContext | RunResult> {
  const run = await claimRun(initial.id, engineSettings.workspaceMaxActiveRuns);
  if (run === "over_share") return run;
  if (!run) return "skipped";
  const general = run.syncRunType === "general";
  const sync = await prisma().sync.findUnique({ where: { id: run.syncId }, select: { status: true, deletedAt: true } });
  if (!sync || sync.deletedAt || (sync.status === "disabled" && general)) {
    await setRunStatus(pgPool(), run.id, "canceled", { error: "The sync is disabled or deleted, so it does not run.", finished: true });
    return "canceled";
  }
  const failBeforeStart = async (error: string): Promise<RunResult> => {
    if (general) await applySyncOutcome(run.syncId, "failed");
    await setRunStatus(pgPool(), run.id, "failed", { error, finished: true });
    return "failed";
  };
  if (run.attempts > engineSettings.maxRunAttempts) {
    return failBeforeStart(`The run was interrupted ${run.attempts - 1} times (worker stopped or crashed); giving up.`);
  }
  try {
    return await loadRunContext(run);
  } catch (err) {
    if (!(err instanceof RunSetupError)) throw err;
    return failBeforeStart(err.message);
  }
}

/**
 * Runs `execute` while watching for a stop from outside: shutdown (the signal), a lost lock, a
 * cancel or disable (the status poll). Closes the destination after.
 */
async function watched(attempt: RunAttempt, lock: RunLock, options: ExecuteOptions, execute: () => Promise<RunResult>): Promise<RunResult> {
  const { run } = attempt.ctx;
  const onAbort = () => attempt.stop("shutdown");
  options.signal?.addEventListener("abort", onAbort, { once: true });
  if (options.signal?.aborted) onAbort();
  // Another worker may take the run now: leave its connector calls at once.
  lock.whenLost(() => {
    attempt.stop("shutdown");
    attempt.abandonCalls("shutdown");
  });
  const poll = setInterval(() => {
    db()
      .selectFrom("sync_runs as r")
      .innerJoin("syncs as s", "s.id", "r.sync_id")
      .select((eb) => ["r.status", "s.status as sync_status", eb("s.deleted_at", "is not", null).as("deleted")])
      .where("r.id", "=", run.id)
      .executeTakeFirst()
      .then((r) => {
        // Ended from outside (a cancel fails it): stop, leaving a connector call that does not answer.
        if (!r || TERMINAL_RUN_STATUSES.includes(r.status)) attempt.stop("canceled");
        else if (run.syncRunType === "general" && (r.sync_status === "disabled" || r.deleted)) attempt.stop("disabled");
      })
      .catch(() => undefined);
  }, engineSettings.statusPollMs);
  try {
    return await execute();
  } finally {
    clearInterval(poll);
    options.signal?.removeEventListener("abort", onAbort);
    // Bounded (connector-calls.ts), even when the destination never answers.
    await attempt.ctx.destination.close?.(attempt.ctx.destinationConfig).catch(() => undefined);
  }
}

/** Still under the lock: a stopped run goes back to the queue; a waiting one is marked paused. */
async function handBack(attempt: RunAttempt, result: RunResult): Promise<RunResult> {
  const { run } = attempt.ctx;
  if (result === "requeue") await requeueRun(run.id);
  const pause = attempt.pause;
  if (result !== "waiting" || !pause) return result;
  if (!(await pauseRun(run.id, pause.until, pause.retryWaits))) return "canceled";
  logger.info(
    { runId: run.id, syncId: run.syncId, waitingUntil: pause.until.toISOString(), cause: pause.cause },
    "run paused: its destination asks to wait; the worker is free until then",
  );
  return "waiting";
}

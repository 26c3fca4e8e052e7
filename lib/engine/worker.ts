// The worker: `concurrency` loops taking jobs from the run queue and executing their runs, plus the
// reaper. After an attempt, a run that stopped for a shutdown, waits for its destination or found its
// lock busy goes back on the queue.
import "server-only";
import type PgBoss from "pg-boss";
import type { SyncRunStatus } from "@/lib/generated/prisma/enums";
import { db } from "@/lib/db/kysely";
import { logger } from "@/lib/logger";
import { every } from "./every";
import { executeRun, type RunResult } from "./execute-run";
import { enqueueRun, getBoss, RUN_QUEUE, type RunJob } from "./queue";
import { keepLiveSyncsGoingQuietly } from "./live/keeper";
import { reapOrphanedRuns } from "./reaper";
import { engineSettings } from "./settings";
import { startWebhookWorker } from "./webhooks/worker";
import { RUNNING_RUN_STATUSES, TERMINAL_RUN_STATUSES } from "./transitions";

/** A run whose lock was busy for a moment (a reaper's check, the previous run letting go) is retried after this. */
const BUSY_RETRY_SECONDS = 2;

/**
 * WORKSPACE_MAX_ACTIVE_RUNS: whether the run's workspace already has its share of runs executing
 * across all workers. A run over the share stays queued and is offered again shortly. A cheap look
 * before the run's lock; the claim checks again, atomically (run-store.ts claimRun), since two
 * workers can both look before either claims.
 */
async function workspaceAtItsShare(runId: number): Promise<boolean> {
  const share = engineSettings.workspaceMaxActiveRuns;
  if (!Number.isInteger(share) || share <= 0) return false;
  const row = await db()
    .selectFrom("sync_runs as r")
    .select((eb) => eb(eb.fn.countAll(), ">=", share).as("busy"))
    .where("r.workspace_id", "=", (eb) => eb.selectFrom("sync_runs as own").select("own.workspace_id").where("own.id", "=", runId))
    .where("r.id", "<>", runId)
    .where("r.status", "in", RUNNING_RUN_STATUSES)
    .executeTakeFirst();
  return row?.busy === true;
}

async function runState(runId: number): Promise<{ status: SyncRunStatus; waitingUntil: Date | null } | undefined> {
  const row = await db().selectFrom("sync_runs").select(["status", "waiting_until"]).where("id", "=", runId).executeTakeFirst();
  return row && { status: row.status, waitingUntil: row.waiting_until };
}

/** After an attempt: a run that stopped for a shutdown, waits for its destination or found its lock busy goes back on the queue. */
async function requeueAfter(runId: number, result: RunResult): Promise<void> {
  if (result !== "waiting" && result !== "requeue" && result !== "busy" && result !== "over_share") return;
  const run = await runState(runId);
  if (!run) return;
  // Not claimed: the run is as it was (queued, or left running by a dead worker), offered again shortly.
  if (result === "over_share") {
    if (!TERMINAL_RUN_STATUSES.includes(run.status)) await enqueueRun(runId, { startAfterSeconds: BUSY_RETRY_SECONDS });
    return;
  }
  // Paused for its destination: back in the queue, to start when the wait is over.
  if (result === "waiting") {
    if (run.status === "paused") await enqueueRun(runId, { startAt: run.waitingUntil });
    return;
  }
  // Busy with the run still queued (or paused, its wait over): its lock was held for a moment (a
  // reaper's check, the sync's previous run letting go), so try again shortly. Busy while it runs:
  // someone has it.
  if (result === "requeue" || run.status === "queued" || run.status === "paused") {
    await enqueueRun(runId, { startAfterSeconds: result === "busy" ? BUSY_RETRY_SECONDS : 0 });
  }
}

async function handleJob(job: PgBoss.Job<RunJob>, shutdown: AbortSignal): Promise<void> {
  const runId = Number(job.data?.runId);
  if (!Number.isInteger(runId)) return;
  if (await workspaceAtItsShare(runId)) {
    const run = await runState(runId);
    if (run && !TERMINAL_RUN_STATUSES.includes(run.status)) await enqueueRun(runId, { startAfterSeconds: BUSY_RETRY_SECONDS });
    return;
  }
  // No withLogContext here: its AsyncLocalStorage would put hooks on every promise of the run
  // (a quarter of an HTTP request's CPU in Node 20); engine log lines name their run themselves.
  const result = await executeRun(runId, { signal: shutdown }).catch((err: unknown) => {
    // The run keeps its running status with its lock free: the reaper hands it to the queue again.
    logger.warn({ runId, err: (err as Error).message }, "run attempt stopped by an error");
    throw err;
  });
  logger.info({ runId, result }, "run finished");
  await requeueAfter(runId, result);
}

export interface WorkerHandle {
  stop(): Promise<void>;
}

/** Work of another layer that runs beside the run loops (the alert queue's): started and stopped with them. */
export type BesideWork = () => Promise<{ stop(): Promise<void> }>;

/** Starts `concurrency` run loops in this process plus the reaper, the webhook worker and `beside`. */
export async function startWorker(options: { concurrency?: number; beside?: readonly BesideWork[] } = {}): Promise<WorkerHandle> {
  const boss = await getBoss({ supervise: true });
  const shutdown = new AbortController();
  const concurrency = Math.max(1, options.concurrency ?? engineSettings.workerConcurrency);
  const active = new Set<Promise<void>>();
  const handler = async (jobs: PgBoss.Job<RunJob>[]) => {
    const done = (async () => {
      for (const job of jobs) await handleJob(job, shutdown.signal);
    })();
    active.add(done);
    try {
      await done;
    } finally {
      active.delete(done);
    }
  };
  const workerIds: string[] = [];
  for (let i = 0; i < concurrency; i++) {
    workerIds.push(await boss.work<RunJob>(RUN_QUEUE, { batchSize: 1, pollingIntervalSeconds: 1 }, handler));
  }
  const besides: { stop(): Promise<void> }[] = [];
  for (const start of options.beside ?? []) besides.push(await start());
  const webhooks = await startWebhookWorker();
  const reaper = every(
    engineSettings.reaperIntervalMs,
    async () => {
      await reapOrphanedRuns();
      await keepLiveSyncsGoingQuietly();
    },
    (err) => logger.warn({ err: (err as Error).message }, "reaper failed"),
  );
  return {
    async stop() {
      await reaper.stop();
      for (const work of besides) await work.stop();
      await webhooks.stop();
      for (const id of workerIds) await boss.offWork({ id });
      shutdown.abort();
      // Running jobs see the abort, hand their run back to the queue at a batch boundary and return;
      // connector calls still in flight after ENGINE_STOP_GRACE_SECONDS are abandoned, so this ends.
      await Promise.allSettled([...active]);
    },
  };
}

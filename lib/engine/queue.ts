// The job queue: pg-boss in the application database, one queue, "sync-run". A job only names its
// run; the run's advisory lock is what keeps a sync to one active run: a worker that finds the lock
// taken drops the job when someone runs it, or retries it shortly when the run still waits. The
// queue policy is pg-boss's standard one, not singleton: with singleton, one job left active (by a
// dead worker, or a canceled run still stopping) kept its sync's next job waiting and, that being the
// oldest waiting job, stopped every fetch behind it, whichever sync theirs was.
// Workers reap runs whose worker died (the lock is free while the run says it is running), and jobs
// a dead worker left active, which pg-boss would otherwise keep for 23 h. A run that waits for its
// destination (paused) holds no worker: its job waits in the queue with a start-after.
import PgBoss from "pg-boss";
import { pgPool } from "@/lib/db/client";
import { logger } from "@/lib/logger";
import { isFree, runLockKey } from "./locks";
import { executeRun, MAX_RUN_ATTEMPTS, setRunStatus, applySyncOutcome } from "./pipeline";
import { RUNNING_RUN_STATUSES, TERMINAL_RUN_STATUSES, runStatusesAllowing } from "./transitions";

export const RUN_QUEUE = "sync-run";
const BOSS_SCHEMA = process.env.PGBOSS_SCHEMA ?? "pgboss";
const REAPER_INTERVAL_MS = Number(process.env.ENGINE_REAPER_INTERVAL_MS ?? 5000);
/** A queued run whose job vanished (or whose worker died before claiming it) is re-sent after this long. */
const QUEUED_GRACE_SECONDS = Number(process.env.ENGINE_QUEUED_GRACE_SECONDS ?? 60);
/**
 * A live worker claims a fetched run, or completes its job, within milliseconds; an active job whose
 * run has ended, or is still queued, this long after is one a dead worker left behind.
 */
const STRANDED_JOB_SECONDS = Number(process.env.ENGINE_STRANDED_JOB_SECONDS ?? 10);
/** A run whose lock was busy for a moment (a reaper's check, the previous run letting go) is retried after this. */
const BUSY_RETRY_SECONDS = 2;

interface RunJob {
  runId: number;
}

interface Globals {
  boss?: PgBoss;
  bossStarting?: Promise<PgBoss>;
  supervise?: boolean;
}
const globals = globalThis as unknown as { __datasyncQueue?: Globals };
const state: Globals = (globals.__datasyncQueue ??= {});

/** The process's pg-boss (started on first use). Workers and schedulers also supervise (expiry, archiving). */
export async function getBoss(options: { supervise?: boolean } = {}): Promise<PgBoss> {
  if (state.boss) return state.boss;
  state.bossStarting ??= (async () => {
    const url = process.env.DATABASE_URL;
    if (!url) throw new Error("DATABASE_URL is not set: the queue lives in the application database.");
    const boss = new PgBoss({
      connectionString: url,
      schema: BOSS_SCHEMA,
      max: Number(process.env.PGBOSS_POOL_SIZE ?? 4),
      supervise: options.supervise ?? false,
      schedule: false,
      migrate: true,
      application_name: "datasync-queue",
    });
    boss.on("error", (err) => {
      // Singleton jobs made before the queue became standard can still race for their key until
      // they are gone; such a failed fetch is retried at the next poll.
      if ((err as { code?: string }).code === "23505") return;
      logger.warn({ err: err.message }, "queue error");
    });
    await boss.start();
    const settings = { policy: "standard", retryLimit: 0, expireInSeconds: 23 * 3600 } as const;
    await boss.createQueue(RUN_QUEUE, { name: RUN_QUEUE, ...settings });
    // A queue made by an earlier version has the singleton policy: new jobs take the queue's policy.
    await boss.updateQueue(RUN_QUEUE, { name: RUN_QUEUE, ...settings });
    state.boss = boss;
    state.supervise = options.supervise;
    return boss;
  })();
  try {
    return await state.bossStarting;
  } catch (err) {
    state.bossStarting = undefined;
    throw err;
  }
}

/**
 * Puts a run on the queue (`startAfterSeconds` to retry it a little later, `startAt` for a paused run
 * once its wait is over). The job names the run only.
 */
export async function enqueueRun(
  run: { id: number; syncId: number; syncRunType: string },
  options: { startAfterSeconds?: number; startAt?: Date | null } = {},
): Promise<void> {
  const boss = await getBoss();
  const startAfter = options.startAt && options.startAt.getTime() > Date.now() ? options.startAt : options.startAfterSeconds || undefined;
  await boss.send(RUN_QUEUE, { runId: run.id } satisfies RunJob, startAfter ? { startAfter } : {});
}

/**
 * WORKSPACE_MAX_ACTIVE_RUNS (unset: no limit): how many runs of one workspace may execute at once
 * across all workers, so that a tenant whose sources or destinations are slow cannot hold every
 * worker slot. A run over the share stays queued and is offered again shortly.
 */
async function workspaceAtItsShare(runId: number): Promise<boolean> {
  const share = Number(process.env.WORKSPACE_MAX_ACTIVE_RUNS ?? 0);
  if (!Number.isInteger(share) || share <= 0) return false;
  const { rows } = await pgPool().query<{ busy: boolean }>(
    `SELECT count(*) >= $2 AS busy FROM sync_runs r
      WHERE r.workspace_id = (SELECT workspace_id FROM sync_runs WHERE id = $1)
        AND r.id <> $1 AND r.status::text = ANY($3::text[])`,
    [runId, share, RUNNING_RUN_STATUSES],
  );
  return rows[0]?.busy === true;
}

/** Jobs of a run still waiting or held by a worker. */
async function liveJobs(runId: number): Promise<{ id: string; state: string }[]> {
  const { rows } = await pgPool().query<{ id: string; state: string }>(
    `SELECT id::text, state::text FROM ${BOSS_SCHEMA}.job WHERE name = $1 AND data->>'runId' = $2 AND state < 'completed'`,
    [RUN_QUEUE, String(runId)],
  );
  return rows;
}

/** Cancels a run's waiting jobs (cancelSync of a run no worker has picked yet). */
export async function cancelRunJobs(runId: number): Promise<void> {
  const jobs = await liveJobs(runId);
  if (jobs.length === 0) return;
  const boss = await getBoss();
  await boss.cancel(
    RUN_QUEUE,
    jobs.map((j) => j.id),
  );
}

/**
 * Re-sends a run whose worker died: the dead worker's job is failed first, then a new one made unless
 * one waits (a paused run's starts when its wait is over).
 */
async function resend(run: { id: number; syncId: number; syncRunType: string }, startAt?: Date | null): Promise<void> {
  const jobs = await liveJobs(run.id);
  const boss = await getBoss();
  const active = jobs.filter((j) => j.state === "active").map((j) => j.id);
  for (const id of active) await boss.fail(RUN_QUEUE, id, { message: "worker stopped; run re-queued" });
  if (jobs.some((j) => j.state === "created" || j.state === "retry")) return;
  await enqueueRun(run, { startAt });
}

/**
 * Fails jobs a dead worker left active: those whose run has ended (the worker died between the run's
 * last write and completing its job), those whose run is still queued long after the fetch (it
 * died before claiming the run, which then gets a new job) and those whose run paused (it died
 * before queueing the run's next job). Returns how many it failed.
 */
export async function reapStrandedJobs(): Promise<number> {
  const { rows } = await pgPool().query<{
    job_id: string;
    run_id: number;
    sync_id: number | null;
    sync_run_type: string | null;
    status: string | null;
    waiting_until: Date | null;
  }>(
    `SELECT j.id::text AS job_id, r.id AS run_id, r.sync_id, r.sync_run_type::text, r.status::text, r.waiting_until
     FROM ${BOSS_SCHEMA}.job j
     LEFT JOIN sync_runs r ON j.data->>'runId' ~ '^[0-9]{1,9}$' AND r.id = (j.data->>'runId')::int
     WHERE j.name = $1 AND j.state = 'active' AND j.started_on < now() - $2 * interval '1 second'
       AND (r.id IS NULL OR r.status = 'queued'
            OR (r.status = ANY($3::sync_run_status[]) AND r.updated_at < now() - $2 * interval '1 second'))`,
    [RUN_QUEUE, STRANDED_JOB_SECONDS, [...TERMINAL_RUN_STATUSES, "paused"]],
  );
  if (rows.length === 0) return 0;
  const boss = await getBoss();
  for (const row of rows) {
    if ((row.status === "queued" || row.status === "paused") && row.sync_id !== null && row.sync_run_type !== null) {
      logger.warn({ runId: row.run_id, syncId: row.sync_id }, "re-queueing a run whose worker stopped before claiming it or queueing its wait");
      await resend({ id: row.run_id, syncId: row.sync_id, syncRunType: row.sync_run_type }, row.waiting_until);
    } else {
      logger.warn({ runId: row.run_id, jobId: row.job_id }, "failing a job left active by a stopped worker");
      await boss.fail(RUN_QUEUE, row.job_id, { message: "worker stopped after its run ended" });
    }
  }
  return rows.length;
}

/**
 * Finds runs left behind by dead workers and hands them to the queue again. Safe to run in every
 * worker at once: each run is moved by a conditional UPDATE under its (free) advisory lock.
 */
export async function reapOrphanedRuns(): Promise<number> {
  await reapStrandedJobs();
  const pool = pgPool();
  const { rows } = await pool.query<{
    id: number;
    sync_id: number;
    sync_run_type: string;
    status: string;
    attempts: number;
  }>(
    `SELECT id, sync_id, sync_run_type::text, status::text, attempts FROM sync_runs
     WHERE status = ANY($1::sync_run_status[])
        OR (status = 'queued' AND updated_at < now() - $2 * interval '1 second')
        OR (status = 'paused' AND COALESCE(waiting_until, updated_at) < now() - $2 * interval '1 second')`,
    [RUNNING_RUN_STATUSES, QUEUED_GRACE_SECONDS],
  );
  let reaped = 0;
  for (const r of rows) {
    const run = { id: r.id, syncId: r.sync_id, syncRunType: r.sync_run_type };
    const waiting = r.status === "queued" || r.status === "paused";
    if (waiting) {
      // Still waiting in the queue is normal; only a run without a waiting job is stranded.
      const jobs = await liveJobs(r.id);
      if (jobs.some((j) => j.state === "created" || j.state === "retry")) continue;
    }
    const client = await pool.connect();
    let moved = false;
    let exhausted = false;
    try {
      await client.query("BEGIN");
      if (await isFree(client, runLockKey(run))) {
        if (!waiting && r.attempts >= MAX_RUN_ATTEMPTS) {
          exhausted = await setRunStatus(client, r.id, "failed", {
            error: `The worker running this sync stopped ${r.attempts} times; the run was given up.`,
            finished: true,
          });
        } else if (r.status === "queued") {
          const res = await client.query(
            "UPDATE sync_runs SET updated_at = now() WHERE id = $1 AND status = 'queued'",
            [r.id],
          );
          moved = (res.rowCount ?? 0) > 0;
        } else {
          // Also a paused run whose wait is long over and whose job is gone.
          const res = await client.query(
            "UPDATE sync_runs SET status = 'queued', updated_at = now() WHERE id = $1 AND status = ANY($2::sync_run_status[])",
            [r.id, runStatusesAllowing("queued").filter((s) => s !== "pending")],
          );
          moved = (res.rowCount ?? 0) > 0;
        }
      }
      await client.query("COMMIT");
    } catch (err) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
    if (exhausted) {
      logger.warn({ runId: r.id, syncId: r.sync_id, attempts: r.attempts, status: r.status }, "giving up a run whose workers kept stopping");
      if (run.syncRunType === "general") await applySyncOutcome(run.syncId, "failed");
      const jobs = await liveJobs(r.id);
      for (const job of jobs) await (await getBoss()).fail(RUN_QUEUE, job.id, { message: "run given up" });
    }
    if (moved) {
      logger.warn({ runId: r.id, syncId: r.sync_id }, "re-queueing a run left by a stopped worker");
      await resend(run);
      reaped++;
    }
  }
  return reaped;
}

export interface WorkerHandle {
  stop(): Promise<void>;
}

/** Starts `concurrency` run loops in this process plus the reaper. */
export async function startWorker(options: { concurrency?: number } = {}): Promise<WorkerHandle> {
  const boss = await getBoss({ supervise: true });
  const shutdown = new AbortController();
  const concurrency = Math.max(1, options.concurrency ?? Number(process.env.WORKER_CONCURRENCY ?? 2));
  const active = new Set<Promise<void>>();
  const handler = async (jobs: PgBoss.Job<RunJob>[]) => {
    const done = handleJobs(jobs);
    active.add(done);
    try {
      await done;
    } finally {
      active.delete(done);
    }
  };
  const handleJobs = async (jobs: PgBoss.Job<RunJob>[]) => {
    for (const job of jobs) {
      const runId = Number(job.data?.runId);
      if (!Number.isInteger(runId)) continue;
      if (await workspaceAtItsShare(runId)) {
        const { rows } = await pgPool().query<{ sync_id: number; sync_run_type: string }>(
          "SELECT sync_id, sync_run_type::text FROM sync_runs WHERE id = $1 AND NOT (status::text = ANY($2::text[]))",
          [runId, TERMINAL_RUN_STATUSES],
        );
        if (rows[0]) await enqueueRun({ id: runId, syncId: rows[0].sync_id, syncRunType: rows[0].sync_run_type }, { startAfterSeconds: BUSY_RETRY_SECONDS });
        continue;
      }
      // No withLogContext here: its AsyncLocalStorage would put hooks on every promise of the run
      // (a quarter of an HTTP request's CPU in Node 20); engine log lines name their run themselves.
      const result = await executeRun(runId, { signal: shutdown.signal }).catch((err: unknown) => {
        // The run keeps its running status with its lock free: the reaper hands it to the queue again.
        logger.warn({ runId, err: (err as Error).message }, "run attempt stopped by an error");
        throw err;
      });
      logger.info({ runId, result }, "run finished");
      if (result === "waiting") {
        // Paused for its destination: back in the queue, to start when the wait is over.
        const { rows } = await pgPool().query<{ sync_id: number; sync_run_type: string; waiting_until: Date | null }>(
          "SELECT sync_id, sync_run_type::text, waiting_until FROM sync_runs WHERE id = $1 AND status = 'paused'",
          [runId],
        );
        const run = rows[0];
        if (run) await enqueueRun({ id: runId, syncId: run.sync_id, syncRunType: run.sync_run_type }, { startAt: run.waiting_until });
      }
      if (result === "requeue" || result === "busy") {
        // Busy with the run still queued (or paused, its wait over): its lock was held for a moment
        // (a reaper's check, the sync's previous run letting go), so try again shortly. Busy while
        // it runs: someone has it.
        const { rows } = await pgPool().query<{ sync_id: number; sync_run_type: string; status: string }>(
          "SELECT sync_id, sync_run_type::text, status::text FROM sync_runs WHERE id = $1",
          [runId],
        );
        const run = rows[0];
        if (run && (result === "requeue" || run.status === "queued" || run.status === "paused")) {
          await enqueueRun(
            { id: runId, syncId: run.sync_id, syncRunType: run.sync_run_type },
            { startAfterSeconds: result === "busy" ? BUSY_RETRY_SECONDS : 0 },
          );
        }
      }
    }
  };
  const workerIds: string[] = [];
  for (let i = 0; i < concurrency; i++) {
    workerIds.push(await boss.work<RunJob>(RUN_QUEUE, { batchSize: 1, pollingIntervalSeconds: 1 }, handler));
  }
  let reaping = false;
  const reap = () => {
    if (reaping) return;
    reaping = true;
    reapOrphanedRuns()
      .catch((err) => logger.warn({ err: (err as Error).message }, "reaper failed"))
      .finally(() => {
        reaping = false;
      });
  };
  reap();
  const timer = setInterval(reap, REAPER_INTERVAL_MS);
  return {
    async stop() {
      clearInterval(timer);
      for (const id of workerIds) await boss.offWork({ id });
      shutdown.abort();
      // Running jobs see the abort, hand their run back to the queue at a batch boundary and return.
      await Promise.allSettled([...active]);
    },
  };
}

/** Stops the process's pg-boss (after workers have stopped). */
export async function stopBoss(): Promise<void> {
  const boss = state.boss;
  state.boss = undefined;
  state.bossStarting = undefined;
  if (boss) await boss.stop({ graceful: true, wait: true, timeout: 30_000 });
}

// The job queue: pg-boss in the application database, one queue, "sync-run", with pg-boss's standard
// policy. A job only names its run; the run's advisory lock is what keeps a sync to one active run: a
// worker that finds the lock taken drops the job when someone runs it, or retries it shortly when
// the run still waits. A run that waits for its destination (paused) holds no worker: its job waits
// in the queue with a start-after. The workers taking jobs: worker.ts; runs and jobs of dead
// workers: reaper.ts.
import "server-only";
import { sql } from "kysely";
import PgBoss from "pg-boss";
import { pgPool } from "@/lib/db/client";
import type { BossTables } from "@/lib/db/declared-relations";
import { anyOf, sqlBuilder, viaClient } from "@/lib/db/kysely";
import type { SyncRunStatus } from "@/lib/generated/prisma/enums";
import { logger } from "@/lib/logger";
import { QUEUE_DDL_LOCK } from "./locks";
import { engineSettings } from "./settings";
import { RUNNING_RUN_STATUSES } from "./transitions";

/** Runs that take a worker's slot when they get one: a run waiting for approval or its destination does not. */
const WAITING_FOR_A_SLOT: readonly SyncRunStatus[] = ["queued", ...RUNNING_RUN_STATUSES];

export const RUN_QUEUE = "sync-run";

export interface RunJob {
  runId: number;
}

interface Globals {
  boss?: PgBoss;
  bossStarting?: Promise<PgBoss>;
}
const globals = globalThis as unknown as { __datasyncQueue?: Globals };
const state: Globals = (globals.__datasyncQueue ??= {});

/** The process's pg-boss (started on first use). Workers and schedulers also supervise (expiry, archiving). */
export async function getBoss(options: { supervise?: boolean } = {}): Promise<PgBoss> {
  if (state.boss) return state.boss;
  state.bossStarting ??= (async () => {
    const url = engineSettings.databaseUrl;
    if (!url) throw new Error("DATABASE_URL is not set: the queue lives in the application database.");
    const boss = new PgBoss({
      connectionString: url,
      schema: engineSettings.bossSchema,
      max: engineSettings.bossPoolSize,
      supervise: options.supervise ?? false,
      schedule: false,
      migrate: true,
      application_name: "datasync-queue",
    });
    boss.on("error", (err) => logger.warn({ err: err.message }, "queue error"));
    await boss.start();
    await ensureQueue(boss, {
      name: RUN_QUEUE,
      policy: "standard",
      retryLimit: 0,
      expireInSeconds: 23 * 3600,
    });
    state.boss = boss;
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
 * Creates a queue unless it exists. pg-boss makes each queue a partition of its job table (DDL with
 * foreign keys); two processes creating queues at once deadlocked (workers starting together in
 * tests/ops/worker-kill.test.ts), so creation is serialised across processes, and a process that
 * finds the queue there does no DDL at all.
 */
export async function ensureQueue(boss: PgBoss, queue: PgBoss.Queue): Promise<void> {
  if (await boss.getQueue(queue.name)) return;
  const client = await pgPool().connect();
  try {
    await client.query("SELECT pg_advisory_lock($1, $2)", QUEUE_DDL_LOCK);
    try {
      if (!(await boss.getQueue(queue.name))) await boss.createQueue(queue.name, queue);
    } finally {
      await client.query("SELECT pg_advisory_unlock($1, $2)", QUEUE_DDL_LOCK);
    }
  } finally {
    client.release();
  }
}

/**
 * Puts a run on the queue (`startAfterSeconds` to retry it a little later, `startAt` for a paused run
 * once its wait is over). The job names the run only.
 */
export async function enqueueRun(
  runId: number,
  options: { startAfterSeconds?: number; startAt?: Date | null } = {},
): Promise<void> {
  const boss = await getBoss();
  const startAfter =
    options.startAt && options.startAt.getTime() > Date.now()
      ? options.startAt
      : options.startAfterSeconds || undefined;
  const priority = -(await placeInWorkspace(runId));
  await boss.send(RUN_QUEUE, { runId } satisfies RunJob, { priority, ...(startAfter ? { startAfter } : {}) });
}

/**
 * How many runs of the run's workspace, created before it, are queued or running: its place in its
 * workspace's line. pg-boss hands out jobs by priority, then age, so with minus this as the priority
 * every workspace's first run comes before any workspace's second, and a workspace that queued many
 * runs at once does not hold the others back (fetched in plain age order, a worker deferring runs over
 * their workspace's share took one a poll while its other slot ran the same workspace's next:
 * bench/README.md, 2026-11-30 (j)).
 */
async function placeInWorkspace(runId: number): Promise<number> {
  const runs = sqlBuilder().selectFrom("sync_runs");
  const [row] = await viaClient(
    pgPool(),
    runs
      .select((eb) => eb.cast<number>(eb.fn.countAll(), "int4").as("ahead"))
      .where("status", "=", anyOf(WAITING_FOR_A_SLOT, "sync_run_status"))
      .where("id", "<", runId)
      .where("workspace_id", "=", (eb) => eb.selectFrom("sync_runs").select("workspace_id").where("id", "=", runId)),
  );
  return row?.ahead ?? 0;
}

/** pg-boss's tables, in its schema (declared in lib/db/declared-relations.ts). */
const boss = () => sqlBuilder().withTables<BossTables>().withSchema(engineSettings.bossSchema);

/** Jobs of a run still waiting or held by a worker. */
export async function liveJobs(runId: number): Promise<{ id: string; state: string }[]> {
  return viaClient(
    pgPool(),
    boss()
      .selectFrom("job")
      .select(["id", "state"])
      .where("name", "=", RUN_QUEUE)
      .where((eb) => eb(sql<string>`${eb.ref("data")}->>'runId'`, "=", String(runId)))
      // pg-boss orders its states: created, retry, active come before completed.
      .where("state", "<", "completed"),
  );
}

/**
 * Run jobs held by a worker for longer than `seconds`: each with its run's id, null when its data
 * names none.
 */
export async function longActiveJobs(seconds: number): Promise<{ jobId: string; runId: number | null }[]> {
  const rows = await viaClient(
    pgPool(),
    boss()
      .selectFrom("job")
      .select((eb) => [
        "id",
        sql<number | null>`CASE WHEN ${eb.ref("data")}->>'runId' ~ '^[0-9]{1,9}$' THEN (${eb.ref("data")}->>'runId')::int END`.as("run_id"),
      ])
      .where("name", "=", RUN_QUEUE)
      .where("state", "=", "active")
      .where("started_on", "<", sql<Date>`now() - ${seconds} * interval '1 second'`),
  );
  return rows.map((r) => ({ jobId: r.id, runId: r.run_id }));
}

/** Whether the queue's schema is installed (a fresh database has none until a worker starts). */
export async function queueInstalled(): Promise<boolean> {
  const [row] = await viaClient(pgPool(), sqlBuilder().selectNoFrom(sql<boolean>`to_regclass(${`${engineSettings.bossSchema}.job`}) IS NOT NULL`.as("installed")));
  return row?.installed === true;
}

/** Jobs waiting in the queue (created or retry), all queues; 0 before the queue is installed. */
export async function queueDepth(): Promise<number> {
  if (!(await queueInstalled())) return 0;
  const [row] = await viaClient(
    pgPool(),
    boss()
      .selectFrom("job")
      .select((eb) => eb.cast<number>(eb.fn.countAll(), "int4").as("n"))
      .where("state", "in", ["created", "retry"]),
  );
  return row?.n ?? 0;
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

/** Stops the process's pg-boss (after workers have stopped). */
export async function stopBoss(): Promise<void> {
  const boss = state.boss;
  state.boss = undefined;
  state.bossStarting = undefined;
  if (boss) await boss.stop({ graceful: true, wait: true, timeout: 30_000 });
}

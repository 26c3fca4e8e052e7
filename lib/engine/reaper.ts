// The reaper, run by every worker: runs whose worker died (the lock is free while the run says it is
// running) go back to the queue, and jobs a dead worker left active, which pg-boss would otherwise
// keep for 23 h, are failed. Safe in every worker at once: each run is moved by a conditional UPDATE
// under its (free) advisory lock.
import "server-only";
import { sql } from "kysely";
import { pgPool } from "@/lib/db/client";
import { anyOf, db } from "@/lib/db/kysely";
import { logger } from "@/lib/logger";
import { isFree, runLockKey } from "./locks";
import { enqueueRun, getBoss, liveJobs, longActiveJobs, RUN_QUEUE } from "./queue";
import { applySyncOutcome, returnToQueue, setRunStatus, touchQueuedRun } from "./run-store";
import { engineSettings } from "./settings";
import { withTransaction } from "./transaction";
import { RUNNING_RUN_STATUSES, TERMINAL_RUN_STATUSES } from "./transitions";

/**
 * Re-sends a run whose worker died: the dead worker's job is failed first, then a new one made unless
 * one waits (a paused run's starts when its wait is over).
 */
async function resend(runId: number, startAt?: Date | null): Promise<void> {
  const jobs = await liveJobs(runId);
  const boss = await getBoss();
  const active = jobs.filter((j) => j.state === "active").map((j) => j.id);
  for (const id of active) await boss.fail(RUN_QUEUE, id, { message: "worker stopped; run re-queued" });
  if (jobs.some((j) => j.state === "created" || j.state === "retry")) return;
  await enqueueRun(runId, { startAt });
}

/**
 * Fails jobs a dead worker left active: those whose run has ended (the worker died between the run's
 * last write and completing its job), those whose run is still queued long after the fetch (it
 * died before claiming the run, which then gets a new job) and those whose run paused (it died
 * before queueing the run's next job). Returns how many it failed.
 */
export async function reapStrandedJobs(): Promise<number> {
  const seconds = engineSettings.strandedJobSeconds;
  const jobs = await longActiveJobs(seconds);
  if (jobs.length === 0) return 0;
  const runIds = [...new Set(jobs.flatMap((j) => (j.runId === null ? [] : [j.runId])))];
  const runs = new Map(
    (runIds.length === 0
      ? []
      : await db()
          .selectFrom("sync_runs")
          .select((eb) => ["id", "status", "waiting_until", eb("updated_at", "<", sql<Date>`now() - ${seconds} * interval '1 second'`).as("idle")])
          .where("id", "=", anyOf(runIds, "int"))
          .execute()
    ).map((r) => [r.id, r]),
  );
  const ended: readonly string[] = [...TERMINAL_RUN_STATUSES, "paused"];
  const rows = jobs.flatMap((j) => {
    const run = j.runId === null ? undefined : runs.get(j.runId);
    if (run && run.status !== "queued" && !(ended.includes(run.status) && run.idle)) return [];
    return [{ job_id: j.jobId, run_id: run?.id ?? j.runId ?? 0, status: run?.status ?? null, waiting_until: run?.waiting_until ?? null }];
  });
  if (rows.length === 0) return 0;
  const boss = await getBoss();
  for (const row of rows) {
    if (row.status === "queued" || row.status === "paused") {
      logger.warn({ runId: row.run_id }, "re-queueing a run whose worker stopped before claiming it or queueing its wait");
      await resend(row.run_id, row.waiting_until);
    } else {
      logger.warn({ runId: row.run_id, jobId: row.job_id }, "failing a job left active by a stopped worker");
      await boss.fail(RUN_QUEUE, row.job_id, { message: "worker stopped after its run ended" });
    }
  }
  return rows.length;
}

/** Finds runs left behind by dead workers and hands them to the queue again. Returns how many. */
export async function reapOrphanedRuns(): Promise<number> {
  await reapStrandedJobs();
  const pool = pgPool();
  const maxAttempts = engineSettings.maxRunAttempts;
  const graceAgo = sql<Date>`now() - ${engineSettings.queuedGraceSeconds} * interval '1 second'`;
  const rows = await db()
    .selectFrom("sync_runs")
    .select(["id", "sync_id", "sync_run_type", "status", "attempts", "updated_at"])
    .where((eb) =>
      eb.or([
        eb("status", "in", [...RUNNING_RUN_STATUSES]),
        eb.and([eb("status", "=", "queued"), eb("updated_at", "<", graceAgo)]),
        eb.and([eb("status", "=", "paused"), eb(eb.fn.coalesce("waiting_until", "updated_at"), "<", graceAgo)]),
      ]),
    )
    .execute();
  let reaped = 0;
  for (const r of rows) {
    const run = { id: r.id, syncId: r.sync_id, syncRunType: r.sync_run_type };
    const waiting = r.status === "queued" || r.status === "paused";
    // Still waiting in the queue is normal; only a run without a waiting job is stranded.
    if (waiting && (await liveJobs(r.id)).some((j) => j.state === "created" || j.state === "retry")) continue;
    const { moved, exhausted } = await withTransaction(pool, async (client) => {
      if (!(await isFree(client, runLockKey(run)))) return { moved: false, exhausted: false };
      if (!waiting && r.attempts >= maxAttempts) {
        const error = `The worker running this sync stopped ${r.attempts} times; the run was given up.`;
        return { moved: false, exhausted: await setRunStatus(client, r.id, "failed", { error, finished: true }) };
      }
      // A paused run here is one whose wait is long over and whose job is gone.
      const moved = r.status === "queued" ? await touchQueuedRun(client, r.id) : await returnToQueue(client, r.id, { status: r.status, updatedAt: r.updated_at });
      return { moved, exhausted: false };
    });
    if (exhausted) {
      logger.warn({ runId: r.id, syncId: r.sync_id, attempts: r.attempts, status: r.status }, "giving up a run whose workers kept stopping");
      if (run.syncRunType === "general") await applySyncOutcome(run.syncId, "failed");
      const jobs = await liveJobs(r.id);
      for (const job of jobs) await (await getBoss()).fail(RUN_QUEUE, job.id, { message: "run given up" });
    }
    if (moved) {
      logger.warn({ runId: r.id, syncId: r.sync_id }, "re-queueing a run left by a stopped worker");
      await resend(r.id);
      reaped++;
    }
  }
  return reaped;
}

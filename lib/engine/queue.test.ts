// The queue heals what a dead worker leaves in pg-boss, and one sync's leftovers never hold up the
// others. A worker killed between a run's last write and completing its job used to leave the job
// active for 23 h; under the singleton policy the queue then had, the sync's next job could not
// start and, as the oldest waiting job, stopped every fetch behind it (CI caught this in the
// worker-kill ops test). These tests make those states directly, with pg-boss's own fetch.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pgPool } from "@/lib/db/client";
import { createScratchDatabase, useTestDatabase } from "@/tests/support/db";
import { startEngine, stopEngine, triggerSync } from "./index";
import { executeRun } from "./execute-run";
import { cancelRunJobs, enqueueRun, getBoss, RUN_QUEUE } from "./queue";
import { reapOrphanedRuns, reapStrandedJobs } from "./reaper";
import { tryLock, unlock, runLockKey } from "./locks";
import { returnToQueue } from "./run-store";
import { catalogOf, createFixture, createPeople, pgConnectorConfig, reloadRun, tableStream, waitFor, type Fixture } from "./test-support";

useTestDatabase();

let source: { url: string; drop(): Promise<void> };
let destination: { url: string; drop(): Promise<void> };

beforeAll(async () => {
  source = await createScratchDatabase("ds_src");
  destination = await createScratchDatabase("ds_dst");
  await createPeople(source.url, 50);
  await createPeople(destination.url, 0);
});

afterAll(async () => {
  await stopEngine();
  await source?.drop();
  await destination?.drop();
});

function fixture(): Promise<Fixture> {
  return createFixture({
    sourceUrl: source.url,
    destination: { connectorName: "Postgresql", config: pgConnectorConfig(destination.url), catalog: catalogOf(tableStream("people")) },
  });
}

/** What a worker does first: take the next job (active from now on). Undefined when none waits. */
async function fetchJob(): Promise<{ id: string; runId: number } | undefined> {
  const [job] = await (await getBoss()).fetch<{ runId: number }>(RUN_QUEUE);
  return job ? { id: job.id, runId: job.data.runId } : undefined;
}

/** Moves a job's start and its run's last write back, as if the worker had died a minute ago. */
async function ageBy(jobId: string, runId: number): Promise<void> {
  await pgPool().query("UPDATE pgboss.job SET started_on = started_on - interval '1 minute' WHERE id = $1", [jobId]);
  await pgPool().query("UPDATE sync_runs SET updated_at = updated_at - interval '1 minute' WHERE id = $1", [runId]);
}

/** What a worker does with a fetched job: run it, then complete the job. */
async function finish(job: { id: string; runId: number } | undefined): Promise<void> {
  expect(job).toBeDefined();
  expect(await executeRun(job!.runId)).toBe("success");
  await (await getBoss()).complete(RUN_QUEUE, job!.id);
}

async function jobState(jobId: string): Promise<string> {
  const { rows } = await pgPool().query<{ state: string }>("SELECT state::text FROM pgboss.job WHERE id = $1", [jobId]);
  return rows[0].state;
}

describe("jobs left active by a dead worker", () => {
  it("a worker that died after its run ended holds up neither the sync's next run nor the queue; its job is failed", async () => {
    const f = await fixture();
    const other = await fixture();
    const first = await triggerSync(f.workspaceId, f.syncId);
    const job = await fetchJob();
    expect(job?.runId).toBe(first.id);
    expect(await executeRun(first.id)).toBe("success");
    // The worker dies here: its job stays active although the run has ended.

    const next = await triggerSync(f.workspaceId, f.syncId);
    const otherRun = await triggerSync(other.workspaceId, other.syncId);
    const fetched = [await fetchJob(), await fetchJob()];
    expect(fetched.map((j) => j?.runId)).toEqual([next.id, otherRun.id]);
    for (const j of fetched) await finish(j);

    expect(await reapStrandedJobs(), "a job whose run ended seconds ago may still be completing").toBe(0);
    await ageBy(job!.id, first.id);
    expect(await reapStrandedJobs()).toBe(1);
    expect(await jobState(job!.id)).toBe("failed");
  });

  it("a worker that died before claiming its run: the job is failed and the run queued again", async () => {
    const f = await fixture();
    const run = await triggerSync(f.workspaceId, f.syncId);
    const job = await fetchJob();
    expect(job?.runId).toBe(run.id);
    // The worker dies before executeRun: the run is still queued behind an active job.
    await ageBy(job!.id, run.id);
    expect(await reapStrandedJobs()).toBe(1);
    expect(await jobState(job!.id)).toBe("failed");

    const again = await fetchJob();
    expect(again?.runId).toBe(run.id);
    await finish(again);
    expect((await reloadRun(run.id)).status).toBe("success");
  });
});

describe("a paused run (waiting for its destination, held by no worker)", () => {
  /** Pauses `runId` until `until` as a worker does, its next job waiting for then; the fetched job completes. */
  async function pause(job: { id: string; runId: number }, until: string): Promise<void> {
    await pgPool().query(
      `UPDATE sync_runs SET status = 'paused', started_at = now(), waiting_until = now() + $2::interval WHERE id = $1`,
      [job.runId, until],
    );
    const run = await reloadRun(job.runId);
    await enqueueRun(run.id, { startAt: run.waitingUntil });
    await (await getBoss()).complete(RUN_QUEUE, job.id);
  }

  it("is left alone by the reaper while its job waits for the end of the wait", async () => {
    const f = await fixture();
    const run = await triggerSync(f.workspaceId, f.syncId);
    const job = await fetchJob();
    await pause(job!, "1 hour");
    expect(await fetchJob(), "its job starts after the wait").toBeUndefined();
    expect(await reapOrphanedRuns()).toBe(0);
    expect(await reapStrandedJobs()).toBe(0);
    expect((await reloadRun(run.id)).status).toBe("paused");
    await cancelRunJobs(run.id);
  });

  it("whose job vanished is queued again once its wait is over, and resumes", async () => {
    const f = await fixture();
    const run = await triggerSync(f.workspaceId, f.syncId);
    const job = await fetchJob();
    await pause(job!, "-2 minutes");
    await cancelRunJobs(run.id);
    expect(await reapOrphanedRuns()).toBe(1);
    expect((await reloadRun(run.id)).status).toBe("queued");
    await finish(await fetchJob());
    expect((await reloadRun(run.id)).status).toBe("success");
  });
});

describe("the reaper racing a live worker", () => {
  it("leaves a run its worker paused after the reaper read it running: the pause and its waiting job stand", async () => {
    const f = await fixture();
    const run = await triggerSync(f.workspaceId, f.syncId);
    const job = await fetchJob();
    // What the reaper read: the run in progress (its worker, alive, about to pause it).
    await pgPool().query("UPDATE sync_runs SET status = 'in_progress', started_at = now() WHERE id = $1", [run.id]);
    const seen = await reloadRun(run.id);
    // The worker pauses the run under its lock, queues its next job for the end of the wait and lets the lock go.
    await new Promise((resolve) => setTimeout(resolve, 5));
    await pgPool().query("UPDATE sync_runs SET status = 'paused', waiting_until = now() + interval '1 hour', updated_at = now() WHERE id = $1", [run.id]);
    // The reaper finds the lock free and acts on what it read.
    const client = await pgPool().connect();
    try {
      expect(await returnToQueue(client, run.id, { status: seen.status, updatedAt: seen.updatedAt })).toBe(false);
    } finally {
      client.release();
    }
    expect((await reloadRun(run.id)).status).toBe("paused");
    await (await getBoss()).complete(RUN_QUEUE, job!.id);
    await cancelRunJobs(run.id);
  });
});

describe("the queue's policy", () => {
  // Standard, not singleton: one job left active (a dead worker's) must not hold up every fetch behind it.
  it("is standard", async () => {
    await getBoss();
    const { rows } = await pgPool().query<{ policy: string }>("SELECT policy FROM pgboss.queue WHERE name = $1", [RUN_QUEUE]);
    expect(rows[0].policy).toBe("standard");
  });
});

describe("a run whose lock is held for a moment", () => {
  it("is tried again within seconds, not left for the reaper's queued-run grace (60 s)", { timeout: 60_000 }, async () => {
    const f = await fixture();
    // Someone holds the sync's lock (a reaper's check, the previous run letting go) as a worker fetches.
    const holder = await pgPool().connect();
    const key = runLockKey({ id: 0, syncId: f.syncId, syncRunType: "general" });
    try {
      expect(await tryLock(holder, key)).toBe(true);
      const run = await triggerSync(f.workspaceId, f.syncId);
      await startEngine({ worker: true, scheduler: false, concurrency: 1 });
      // The worker found it busy: the run is still queued and waits for its retry.
      await waitFor(
        async () => {
          const { rows } = await pgPool().query<{ n: number }>(
            "SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1 AND data->>'runId' = $2 AND state = 'completed'",
            [RUN_QUEUE, String(run.id)],
          );
          return rows[0].n > 0 ? true : undefined;
        },
        20_000,
        "the worker to try the run once",
      );
      expect((await reloadRun(run.id)).status).toBe("queued");
      await unlock(holder, key);
      const done = await waitFor(
        async () => {
          const r = await reloadRun(run.id);
          return r.status === "success" ? r : undefined;
        },
        20_000,
        `run ${run.id} to succeed after the lock was released`,
      );
      expect(done.successfulRows).toBe(50);
    } finally {
      holder.release();
      await stopEngine();
    }
  });
});

// Fault: sync workers SIGKILLed at random points of a 50,000-row PostgreSQL → PostgreSQL sync.
// Real worker processes (scripts/worker.ts) on one application database; each trial syncs the same
// source into a fresh destination table, kills the worker that runs it once or twice at a random
// progress point, lets a fresh worker finish, then re-runs. Every run must end success (or failed
// with a reason), the destination must equal the source with every row recorded exactly once, and
// the re-run must converge (nothing left to send).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prisma } from "@/lib/db/client";
import { stopEngine, triggerSync } from "@/lib/engine";
import {
  catalogOf,
  createFixture,
  pgConnectorConfig,
  reloadRun,
  spawnWorker,
  sql,
  stopWorker,
  tableStream,
  waitFor,
} from "@/lib/engine/test-support";
import { createScratchDatabase, useTestDatabase } from "@/tests/support/db";
import { seededFraction } from "@/tests/support/random";

const db = useTestDatabase();

const ROWS = 50_000;
const TRIALS = Number(process.env.OPS_TRIALS ?? 10);
const LANES = Number(process.env.OPS_LANES ?? 2);
const SEED = Number(process.env.OPS_SEED ?? Date.now() % 100_000);
// Batches of 500 rows (1,000 lines): a run of 50 batches lasts seconds and moves in small steps, so a
// kill lands mid-run. With 2,500 a first sync held as columns took 0.3-0.5 s, passed most kill points
// between two looks, and a trial ended with no kill (4 of 10 in one run).
const WORKER_ENV = { ENGINE_BATCH_SIZE: "500", ENGINE_REAPER_INTERVAL_MS: "300", WORKER_SCHEDULER: "0" };

/** A failing trial can be replayed with OPS_SEED. */
const random = seededFraction;

let source: { url: string; drop(): Promise<void> };
let destination: { url: string; drop(): Promise<void> };
const alive = new Map<string, ReturnType<typeof spawnWorker>>();
/** Every worker's output, the killed ones' too, for the message of a failing trial. */
const outputs = new Map<string, () => string>();
let spawned = 0;

/** A worker whose database sessions carry its name, so the holder of a run's lock can be found. */
function startWorker(): void {
  const name = `ops-worker-${++spawned}`;
  const url = new URL(db.url());
  url.searchParams.set("application_name", name);
  const w = spawnWorker(url.toString(), { ...WORKER_ENV, DATABASE_URL: url.toString() });
  alive.set(name, w);
  outputs.set(name, w.output);
  w.once("exit", () => alive.delete(name));
}

/** The worker holding the run's lock (the one running it), if any; not a reaper checking it. */
async function runner(syncId: number): Promise<string | undefined> {
  const rows = await sql<{ name: string }>(
    db.url(),
    `SELECT a.application_name AS name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
     WHERE l.locktype = 'advisory' AND l.granted AND l.classid = $1::oid AND l.objid = $2::oid AND l.objsubid = 2
       AND a.application_name LIKE 'ops-worker-%'
       -- A run's lock sits on an idle connection; a reaper checking the same key is inside a transaction.
       AND a.state = 'idle'`,
    [0x53594e43, syncId],
  );
  return rows[0]?.name;
}

const TERMINAL = ["success", "failed", "canceled"];

/** md5 over every row in id order: equal digests mean equal tables. */
async function digest(url: string, table: string): Promise<{ n: number; md5: string }> {
  const [row] = await sql<{ n: string; md5: string }>(
    url,
    `SELECT count(*) AS n, md5(coalesce(string_agg(id || '|' || name || '|' || score, ',' ORDER BY id), '')) AS md5 FROM ${table}`,
  );
  return { n: Number(row.n), md5: row.md5 };
}

beforeAll(async () => {
  source = await createScratchDatabase("ds_ops_src");
  destination = await createScratchDatabase("ds_ops_dst");
  await sql(
    source.url,
    `CREATE TABLE people AS SELECT g AS id, 'Person ' || g AS name, g % 97 AS score FROM generate_series(1, ${ROWS}) g`,
  );
  await sql(source.url, "ALTER TABLE people ADD PRIMARY KEY (id)");
});

afterAll(async () => {
  for (const w of [...alive.values()]) await stopWorker(w, "SIGKILL");
  await stopEngine();
  await source?.drop();
  await destination?.drop();
});

describe(`${TRIALS} trials of a ${ROWS}-row sync with workers killed mid-run (seed ${SEED})`, () => {
  it("loses no row, duplicates none, ends every run with an outcome, and converges on re-run", { timeout: 900_000 }, async () => {
    const srcDigest = await digest(source.url, "people");
    expect(srcDigest.n).toBe(ROWS);
    const summary: string[] = [];
    let kills = 0;
    let midRunKills = 0;
    // Trials run LANES at a time, with one worker more than lanes: when the worker running a trial is
    // killed, an idle one takes the run over at once, and a replacement starts in the background.
    for (let i = 0; i < LANES + 1; i++) startWorker();
    const output = () =>
      [...outputs.entries()].map(([n, out]) => `${n}${alive.has(n) ? "" : " (killed)"}:\n${out()}`).join("\n");
    const started = Date.now();

    const runTrial = async (trial: number) => {
      const rand = random(SEED + trial);
      const table = `people_${trial}`;
      await sql(destination.url, `CREATE TABLE ${table} (id integer PRIMARY KEY, name text NOT NULL, score integer)`);
      const f = await createFixture({
        sourceUrl: source.url,
        destination: {
          connectorName: "Postgresql",
          config: pgConnectorConfig(destination.url),
          catalog: catalogOf(tableStream(table, { batch_size: 2500 }), { request_rate_concurrency: 4 }),
        },
        query: "SELECT id, name, score FROM people",
        sync: {
          configuration: [
            { from: "id", to: "id", mapping_type: "standard" },
            { from: "name", to: "name", mapping_type: "standard" },
            { from: "score", to: "score", mapping_type: "standard" },
          ],
        },
      });
      const run = await triggerSync(f.workspaceId, f.syncId);
      // One kill in even trials, two in odd ones (the run's third attempt finishes it).
      const killsThisTrial = trial % 2 === 0 ? 1 : 2;
      const points: number[] = [];
      for (let k = 0; k < killsThisTrial; k++) {
        // A random progress point; trial 0 kills as soon as the run is claimed (during the first query).
        // At most 40% of the way, and at most 150 ms past it: a 50,000-row run takes one to two seconds
        // (less since records are written as blocks), so a later point is often passed and finished
        // between two looks, and the trial ends with no kill at all.
        const target = trial === 0 && k === 0 ? 0 : Math.floor(rand() * ROWS * 0.4);
        const extraMs = Math.floor(rand() * 150);
        const attempt = k + 1;
        const reached = await waitFor(
          async () => {
            const r = await reloadRun(run.id);
            if (TERMINAL.includes(r.status)) return { r, holder: undefined };
            if (r.attempts < attempt || r.successfulRows < target) return undefined;
            const holder = await runner(f.syncId);
            return holder ? { r, holder } : undefined;
          },
          180_000,
          `run ${run.id} attempt ${attempt} to reach ${target} rows; workers:\n${output()}`,
        );
        if (!reached.holder) break;
        await new Promise((r) => setTimeout(r, extraMs));
        // During the pause the worker may have finished this run and taken another, possibly the
        // other lane's: killing it then would interrupt a run this trial did not aim at (a third
        // interruption makes the engine give that run up). Kill it only while it still holds ours.
        if ((await runner(f.syncId)) !== reached.holder) {
          k--; // look again: the run has ended, or its holder changed
          continue;
        }
        const victim = alive.get(reached.holder);
        if (!victim) break;
        await stopWorker(victim, "SIGKILL");
        kills++;
        const after = await reloadRun(run.id);
        if (!TERMINAL.includes(after.status)) midRunKills++;
        points.push(after.successfulRows);
        startWorker();
      }

      const done = await waitFor(
        async () => {
          const r = await reloadRun(run.id);
          return TERMINAL.includes(r.status) ? r : undefined;
        },
        240_000,
        `run ${run.id} (trial ${trial}) to finish; workers:\n${output()}`,
      );
      // Every run ends with an outcome; a failure carries its reason.
      expect(["success", "failed"]).toContain(done.status);
      if (done.status === "failed") expect(done.error, "a failed run says why").toBeTruthy();
      expect(done, `trial ${trial}: ${JSON.stringify(done)}; workers:\n${output()}`).toMatchObject({ status: "success", error: null, failedRows: 0 });

      // Nothing lost: the destination equals the source.
      expect(await digest(destination.url, table)).toEqual(srcDigest);
      // Nothing duplicated: every primary key recorded once by this run, every record a success.
      const [rec] = await sql<{ n: string; keys: string; ok: string }>(
        db.url(),
        `SELECT count(*) AS n, count(DISTINCT primary_key) AS keys, count(*) FILTER (WHERE status = 'success') AS ok
         FROM sync_record_rows WHERE sync_run_id = $1`,
        [run.id],
      );
      expect({ n: Number(rec.n), keys: Number(rec.keys), ok: Number(rec.ok) }).toEqual({ n: ROWS, keys: ROWS, ok: ROWS });
      expect(done.successfulRows).toBe(ROWS);

      // A re-run converges: nothing new to send, the destination unchanged.
      const rerun = await triggerSync(f.workspaceId, f.syncId);
      const again = await waitFor(
        async () => {
          const r = await reloadRun(rerun.id);
          return TERMINAL.includes(r.status) ? r : undefined;
        },
        180_000,
        `re-run of trial ${trial}; workers:\n${output()}`,
      );
      expect(again).toMatchObject({ status: "success", successfulRows: 0, failedRows: 0, skippedRows: ROWS });
      expect(await digest(destination.url, table)).toEqual(srcDigest);
      expect((await prisma().sync.findUniqueOrThrow({ where: { id: f.syncId } })).status).toBe("healthy");
      console.log(`trial ${trial} done at ${((Date.now() - started) / 1000).toFixed(1)} s`);
      summary[trial] = (`trial ${trial}: killed at ${points.join(", ") || "-"} rows, attempts ${done.attempts}, ${((done.finishedAt!.getTime() - done.startedAt!.getTime()) / 1000).toFixed(1)} s, timings ${JSON.stringify(done.timings)}; re-run ${((again.finishedAt!.getTime() - again.startedAt!.getTime()) / 1000).toFixed(1)} s`);
    };
    await Promise.all(
      Array.from({ length: LANES }, async (_, lane) => {
        for (let trial = lane; trial < TRIALS; trial += LANES) await runTrial(trial);
      }),
    );
    console.log(
      [`worker-kill (seed ${SEED}): ${TRIALS} trials × ${ROWS} rows, ${kills} SIGKILLs (${midRunKills} mid-run), 0 rows lost, 0 duplicated, ${((Date.now() - started) / 1000).toFixed(0)} s`, ...summary].join("\n"),
    );
    expect(midRunKills).toBeGreaterThanOrEqual(TRIALS);
  });
});

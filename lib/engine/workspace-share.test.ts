// WORKSPACE_MAX_ACTIVE_RUNS holds at the claim. The bench's scale section (two worker processes,
// share 1) saw two runs of one workspace running at once: each worker looked at the workspace's
// running runs before either had claimed its own, and both went on. The claim now counts and
// claims in one transaction under the workspace's lock. Real PostgreSQL, the engine in this process.
import { afterAll, beforeAll, expect, it } from "vitest";
import { pgPool } from "@/lib/db/client";
import { createScratchDatabase, useTestDatabase } from "@/tests/support/db";
import { executeRun } from "./execute-run";
import { stopEngine, triggerSync } from "./index";
import { getBoss, RUN_QUEUE, type RunJob } from "./queue";
import { claimRun, setRunStatus } from "./run-store";
import { catalogOf, createFixture, createPeople, pgConnectorConfig, reloadRun, sql, tableStream } from "./test-support";

useTestDatabase();

let source: { url: string; drop(): Promise<void> };

beforeAll(async () => {
  source = await createScratchDatabase("ds_share_claim");
  await createPeople(source.url, 5);
  await sql(source.url, "CREATE TABLE people_copy (id integer PRIMARY KEY, name text, email text, score integer, updated_at timestamptz)");
});

afterAll(async () => {
  await stopEngine();
  await source?.drop();
  delete process.env.WORKSPACE_MAX_ACTIVE_RUNS;
});

/** Two syncs of one workspace, each with a queued run. */
async function twoQueuedRuns(): Promise<[number, number]> {
  const destination = { connectorName: "Postgresql", config: pgConnectorConfig(source.url), catalog: catalogOf(tableStream("people_copy")) };
  const a = await createFixture({ sourceUrl: source.url, destination });
  const b = await createFixture({ sourceUrl: source.url, destination, workspaceId: a.workspaceId, destinationId: a.destinationId });
  const runA = await triggerSync(a.workspaceId, a.syncId);
  const runB = await triggerSync(b.workspaceId, b.syncId);
  return [runA.id, runB.id];
}

it("two workers claiming runs of one workspace at the same moment: one gets in, the other is over the share", async () => {
  const [a, b] = await twoQueuedRuns();
  const claims = await Promise.all([claimRun(a, 1), claimRun(b, 1)]);
  expect(claims.filter((c) => c === "over_share")).toHaveLength(1);
  const statuses = [(await reloadRun(a)).status, (await reloadRun(b)).status].sort();
  expect(statuses).toEqual(["queued", "started"]);
});

it("a worker does not run a run whose workspace has its share running elsewhere; it runs once that one ends", async () => {
  process.env.WORKSPACE_MAX_ACTIVE_RUNS = "1";
  const [a, b] = await twoQueuedRuns();
  // Another worker holds run a.
  expect(await claimRun(a)).toMatchObject({ status: "started" });
  expect(await executeRun(b)).toBe("over_share");
  const waiting = await reloadRun(b);
  expect(waiting.status).toBe("queued");
  expect(waiting.attempts).toBe(0);
  await setRunStatus(pgPool(), a, "canceled", { error: "ended by the test", finished: true });
  expect(await executeRun(b)).toBe("success");
});

it("the queue hands out every workspace's first waiting run before any workspace's next one", async () => {
  const destination = { connectorName: "Postgresql", config: pgConnectorConfig(source.url), catalog: catalogOf(tableStream("people_copy")) };
  const busy = await createFixture({ sourceUrl: source.url, destination });
  const busyRuns: number[] = [];
  for (let i = 0; i < 3; i++) {
    const f = i === 0 ? busy : await createFixture({ sourceUrl: source.url, destination, workspaceId: busy.workspaceId, destinationId: busy.destinationId });
    busyRuns.push((await triggerSync(f.workspaceId, f.syncId)).id);
  }
  // Another workspace queues one run after all of those.
  const other = await createFixture({ sourceUrl: source.url, destination });
  const otherRun = (await triggerSync(other.workspaceId, other.syncId)).id;
  const ours = new Set([...busyRuns, otherRun]);
  const boss = await getBoss();
  const order: number[] = [];
  for (let tries = 0; order.length < ours.size && tries < 20; tries++) {
    const [job] = await boss.fetch<RunJob>(RUN_QUEUE);
    if (!job) break;
    if (ours.has(job.data.runId)) order.push(job.data.runId);
  }
  // Fetched in plain age order the other workspace's run would come last.
  expect(order).toEqual([busyRuns[0], otherRun, busyRuns[1], busyRuns[2]]);
});

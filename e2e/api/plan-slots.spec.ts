// Issue 32: plan slots are shared between workspaces. One workspace whose model is slow (a real
// PostgreSQL pg_sleep in its query) asks for more plans than its share: the extra one is refused with
// a sentence, and another workspace's plan starts and finishes while the slow one still runs. No
// durations are asserted: only which request settled first and what each answered.
import { expect, test } from "@playwright/test";
import type { Api } from "../support/api";
import { dataWorkspace, sql, sqlRows, unique, type DataWorkspace } from "../support/data";
import { guardedSync, syncAttributes } from "../support/run-scenarios";

let slow: DataWorkspace;
let other: DataWorkspace;
const tables: string[] = [];

test.beforeAll(async () => {
  slow = await dataWorkspace("plan-slots-slow");
  other = await dataWorkspace("plan-slots-other");
});

test.afterAll(async () => {
  await slow?.dispose();
  await other?.dispose();
  for (const table of tables) await sql(`DROP TABLE IF EXISTS ${table}`);
});

/** A sync whose model sleeps `seconds` in PostgreSQL before its rows come; the marker names its queries. */
async function slowSync(api: Api, seconds: number): Promise<{ syncId: number; marker: string }> {
  const { syncId, src, dst } = await guardedSync(api, 3);
  tables.push(src, dst);
  const marker = unique("slow_plan");
  const modelId = Number((await syncAttributes(api, syncId)).model_id);
  const res = await api.put(`/api/v1/models/${modelId}`, {
    model: { query: `SELECT s.id, s.email FROM ${src} s CROSS JOIN (SELECT pg_sleep(${seconds}) AS ${marker}) z` },
  });
  expect(res.status(), await res.text()).toBe(200);
  return { syncId, marker };
}

/** Queries of the slow model now running in PostgreSQL. */
const sleeping = async (marker: string) =>
  Number(
    (
      await sqlRows<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND query LIKE $1 AND query NOT LIKE '%pg_stat_activity%'`, [
        `%${marker}%`,
      ])
    )[0].n,
  );

test("one workspace's slow plans cannot hold every plan slot: another workspace's plan starts and finishes first", async () => {
  test.setTimeout(120_000);
  const { syncId, marker } = await slowSync(slow.admin, 20);
  const fast = await guardedSync(other.admin, 3);
  tables.push(fast.src, fast.dst);

  const settled: string[] = [];
  const first = slow.admin.post(`/api/v1/syncs/${syncId}/plan`).then((r) => (settled.push("slow 1"), r));
  await expect.poll(() => sleeping(marker), { timeout: 30_000 }).toBe(1);
  // A second slow plan of the same workspace: refused at once (its share is taken), or, without
  // shares, it takes the last slot and sleeps too.
  let secondDone = false;
  const second = slow.admin.post(`/api/v1/syncs/${syncId}/plan`).then((r) => ((secondDone = true), settled.push("slow 2"), r));
  await expect.poll(async () => secondDone || (await sleeping(marker)) >= 2, { timeout: 30_000 }).toBe(true);

  // Asked again while refused: another spec's short plan may hold the remaining slot for a moment.
  // Without shares this waits until a slow plan ends, so the order below still tells.
  let counts: unknown;
  await expect
    .poll(
      async () => {
        const theirs = await other.admin.post(`/api/v1/syncs/${fast.syncId}/plan`);
        if (theirs.status() === 200) counts = (await theirs.json()).data.counts;
        return theirs.status();
      },
      { timeout: 60_000, intervals: [250] },
    )
    .toBe(200);
  settled.push("other");
  expect(counts).toMatchObject({ read: 3, insert: 3 });

  const refused = await second;
  expect(refused.status()).toBe(429);
  expect(refused.headers()["retry-after"]).toBe("5");
  expect((await refused.json()).message).toContain("This workspace has 1 plan being computed already (at most 1 at once, PLAN_MAX_CONCURRENT_PER_WORKSPACE)");
  const done = await first;
  expect(done.status(), await done.text()).toBe(200);
  // The other workspace's plan settled while the slow one was still reading.
  expect(settled).toEqual(["slow 2", "other", "slow 1"]);
});

// Issue 32 item 4 over real HTTP: an approval binds to the plan that was shown (its counts and the
// keys it would delete), not to whatever the run finds when it executes. A run held at "3 of 10
// deletes" whose source is then emptied must not delete all 10 once approved: it is held again,
// saying what changed, and deletes nothing; so is one that would delete as many, but other, rows.
// Unchanged, the approved run deletes exactly the 3.
import { expect, test } from "@playwright/test";
import type { Api } from "../support/api";
import { dataWorkspace, sql, sqlRows, type DataWorkspace } from "../support/data";
import { actorName, guardedSync, TERMINAL, trigger, waitForRun } from "../support/run-scenarios";

let ws: DataWorkspace;
const tables: string[] = [];

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  ws = await dataWorkspace("approval-binding");
});

test.afterAll(async () => {
  await ws?.dispose();
  for (const table of tables) await sql(`DROP TABLE IF EXISTS ${table}`);
});

const ids = async (table: string) => (await sqlRows<{ id: number }>(`SELECT id FROM ${table} ORDER BY id`)).map((r) => r.id);

/** Ended, or held again (an approval spent: approved_by cleared), as an approved run's status can settle. */
const heldAgain = (a: { status: string; approved_by?: unknown }) => TERMINAL.includes(a.status) || (a.status === "needs_approval" && a.approved_by === null);

/** A sync that delivered ids 1..10; ids 8, 9 and 10 then leave the model: its next run is held at 3 of 10 deletes. */
async function heldAtThreeOfTen(api: Api) {
  const { syncId, src, dst } = await guardedSync(api, 10);
  tables.push(src, dst);
  expect(await waitForRun(api, syncId, await trigger(api, syncId))).toMatchObject({ status: "success" });
  await sql(`DELETE FROM ${src} WHERE id > 7`);
  const runId = await trigger(api, syncId);
  const held = await waitForRun(api, syncId, runId, (a) => a.status === "needs_approval");
  expect(held.error).toContain("would delete 3 of 10 tracked rows (30%), over the 20% limit");
  const plan = held.plan as { planned_at: string; counts: { delete: number } };
  expect(plan.counts.delete).toBe(3);
  return { syncId, src, dst, runId, plannedAt: plan.planned_at, approvePath: `/api/v1/syncs/${syncId}/sync_runs/${runId}/approve` };
}

test("the issue's attack: approved at 3 of 10 deletes, the source emptied, the approved run is held again and deletes nothing", async () => {
  const { syncId, src, dst, runId, plannedAt, approvePath } = await heldAtThreeOfTen(ws.admin);
  // The source is emptied after the plan was shown, before the approved run executes.
  await sql(`DELETE FROM ${src}`);
  const approved = await ws.admin.post(approvePath, { planned_at: plannedAt });
  expect(approved.status(), await approved.text()).toBe(200);

  const again = await waitForRun(ws.admin, syncId, runId, heldAgain);
  expect(again).toMatchObject({ status: "needs_approval", outcome: "needs_approval", approved_by: null, total_rows: 0, finished_at: null });
  expect(again.error).toContain("the source changed after approval: the model returns no rows now, 7 when it was approved; 10 deletes now, 3 approved");
  expect(again.error).toContain("would delete 10 of 10 tracked rows (100%), over the 20% limit");
  expect(again.plan).toMatchObject({ counts: { delete: 10, read: 0 } });
  expect(await ids(dst)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);

  // The earlier approval is spent: approving the plan that was shown before is a 409 saying so.
  const stale = await ws.admin.post(approvePath, { planned_at: plannedAt });
  expect(stale.status()).toBe(409);
  expect((await stale.json()).message).toContain("was held again with another plan");
  const bad = await ws.admin.post(approvePath, { planned_at: 5 });
  expect(bad.status()).toBe(422);
  expect((await bad.json()).message).toContain("planned_at: must be the planned_at of the run's plan, as shown");
  // Canceled, it ends without writing.
  expect((await ws.admin.delete(`/api/v1/schedule_syncs/${syncId}`)).status()).toBe(200);
  expect(await ids(dst)).toHaveLength(10);
});

test("as many deletes, but of other rows than approved: held again naming them, nothing deleted", async () => {
  const { syncId, src, dst, runId, plannedAt, approvePath } = await heldAtThreeOfTen(ws.admin);
  // 8, 9 and 10 come back; 1, 2 and 3 leave: still 3 of 10 deletes, of other rows.
  await sql(`INSERT INTO ${src} SELECT g, 'u' || g || '@example.com' FROM generate_series(8, 10) g`);
  await sql(`DELETE FROM ${src} WHERE id <= 3`);
  const approved = await ws.admin.post(approvePath, { planned_at: plannedAt });
  expect(approved.status(), await approved.text()).toBe(200);

  const again = await waitForRun(ws.admin, syncId, runId, heldAgain);
  expect(again).toMatchObject({ status: "needs_approval", approved_by: null, total_rows: 0 });
  expect(again.error).toContain('the source changed after approval: it would delete 3 rows the approved plan did not (key "1", "2", "3")');
  expect(await ids(dst)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);

  // Approving what it shows now lets it go on: it deletes those 3.
  const now = (again.plan as { planned_at: string }).planned_at;
  expect((await ws.admin.post(approvePath, { planned_at: now })).status()).toBe(200);
  expect(await waitForRun(ws.admin, syncId, runId)).toMatchObject({ status: "success", total_rows: 3 });
  expect(await ids(dst)).toEqual([4, 5, 6, 7, 8, 9, 10]);
});

test("unchanged source: the approved run deletes exactly the 3 it was approved for", async () => {
  const { syncId, dst, runId, plannedAt, approvePath } = await heldAtThreeOfTen(ws.admin);
  const approved = await ws.admin.post(approvePath, { planned_at: plannedAt });
  expect(approved.status(), await approved.text()).toBe(200);
  const who = await actorName(ws.admin);
  const done = await waitForRun(ws.admin, syncId, runId);
  expect(done).toMatchObject({ status: "success", outcome: "succeeded", approved_by: who, total_rows: 3, error: null });
  // The run shows the plan it went on with (the same 3 deletes), not the keys it kept.
  expect(done.plan).toMatchObject({ counts: { delete: 3 }, exceeded: ["would delete 3 of 10 tracked rows (30%), over the 20% limit"] });
  expect(Object.keys(done.plan as object)).not.toContain("changes");
  expect(await ids(dst)).toEqual([1, 2, 3, 4, 5, 6, 7]);
});

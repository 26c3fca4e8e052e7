// The dry-run plan and the blast-radius guard over real HTTP (issue 15, items 2, 3 and 6): a plan
// writes nothing and is refused to a Viewer and to other workspaces; a run its limits hold waits as
// needs_approval with the numbers, is approved (audit-logged, approved_by) or canceled; approving a
// run that does not wait is a 409 with a sentence.
import { expect, test } from "@playwright/test";
import { dataWorkspace, sql, sqlRows, type DataWorkspace } from "../support/data";
import { actorName, guardedSync, postPlan, runAttributes, syncAttributes, trigger, waitForRun } from "../support/run-scenarios";

let ws: DataWorkspace;
let other: DataWorkspace;
const tables: string[] = [];

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  ws = await dataWorkspace("plan-guard");
  other = await dataWorkspace("plan-guard-other");
});

test.afterAll(async () => {
  await ws?.dispose();
  await other?.dispose();
  for (const table of tables) await sql(`DROP TABLE IF EXISTS ${table}`);
});

const count = async (table: string) => Number((await sqlRows<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`))[0].n);

test("a plan shows what the next run would do and writes nothing; Viewers and other workspaces cannot plan", async () => {
  const { syncId, src, dst } = await guardedSync(ws.admin, 20);
  tables.push(src, dst);
  const res = await postPlan(ws.admin, syncId, { sample_size: 3 });
  expect(res.status(), await res.text()).toBe(200);
  const plan = (await res.json()).data;
  expect(plan).toMatchObject({
    sync_id: syncId,
    counts: { read: 20, insert: 20, update: 0, delete: 0, skip: 0, unchanged: 0, duplicate: 0, blank_key: 0 },
    tracked: 0,
    full_read: true,
    guard: { max_delete_percent: 20, max_change_percent: null, refuse_empty_extract: true },
    exceeded: [],
  });
  expect(plan.samples.insert).toHaveLength(3);
  expect(plan.samples.insert[0]).toMatchObject({ primary_key: expect.any(String), row: { id: expect.any(Number) }, payload: { email: expect.stringContaining("@") } });
  // Nothing written, no run made.
  expect(await count(dst)).toBe(0);
  const runs = await ws.admin.get(`/api/v1/syncs/${syncId}/sync_runs`);
  expect((await runs.json()).data).toHaveLength(0);
  // The body is optional (5 samples); a bad sample_size is a 422 with a sentence.
  expect((await postPlan(ws.admin, syncId)).status()).toBe(200);
  const bad = await ws.admin.post(`/api/v1/syncs/${syncId}/plan`, { sample_size: 500 });
  expect(bad.status()).toBe(422);
  expect((await bad.json()).message).toContain("sample_size: must be a whole number from 0 to 20");

  // Planning is for whoever may run the sync: a Viewer may not; another workspace's sync is a 404.
  expect((await ws.viewer.post(`/api/v1/syncs/${syncId}/plan`)).status()).toBe(403);
  expect((await other.admin.post(`/api/v1/syncs/${syncId}/plan`)).status()).toBe(404);
});

test("guard settings: shown with their effective values, validated, and turned off explicitly", async () => {
  const { syncId, src, dst } = await guardedSync(ws.admin, 5);
  tables.push(src, dst);
  const shown = await syncAttributes(ws.admin, syncId);
  expect(shown).toMatchObject({ guard: null, effective_guard: { max_delete_percent: 20, max_change_percent: null, refuse_empty_extract: true } });

  const bad = await ws.admin.put(`/api/v1/syncs/${syncId}`, { sync: { guard: { max_delete_percent: 150, max_deletes: 3 } } });
  expect(bad.status()).toBe(422);
  const message = (await bad.json()).message as string;
  expect(message).toContain("sync.guard.max_delete_percent: must be a percentage from 0 to 100, or null to turn the limit off");
  expect(message).toContain("max_deletes");

  const off = await ws.admin.put(`/api/v1/syncs/${syncId}`, { sync: { guard: { max_delete_percent: null, max_change_percent: 50 } } });
  expect(off.status(), await off.text()).toBe(200);
  expect((await off.json()).data.attributes).toMatchObject({
    guard: { max_delete_percent: null, max_change_percent: 50 },
    effective_guard: { max_delete_percent: null, max_change_percent: 50, refuse_empty_extract: true },
  });
  const reset = await ws.admin.put(`/api/v1/syncs/${syncId}`, { sync: { guard: null } });
  expect((await reset.json()).data.attributes).toMatchObject({ guard: null, effective_guard: { max_delete_percent: 20 } });
});

test("a run its limits hold waits as needs_approval with the numbers; approving it is audit-logged and it runs; a second approve is a 409", async () => {
  const { syncId, src, dst } = await guardedSync(ws.admin, 20);
  tables.push(src, dst);
  expect(await waitForRun(ws.admin, syncId, await trigger(ws.admin, syncId))).toMatchObject({ status: "success" });
  await sql(`DELETE FROM ${src} WHERE id > 2`);

  // The plan says it before the run does.
  const planned = (await (await postPlan(ws.admin, syncId)).json()).data;
  expect(planned.counts).toMatchObject({ delete: 18, insert: 0, update: 0, unchanged: 2 });
  expect(planned.exceeded).toEqual(["would delete 18 of 20 tracked rows (90%), over the 20% limit"]);

  const runId = await trigger(ws.admin, syncId);
  const held = await waitForRun(ws.admin, syncId, runId, (a) => a.status === "needs_approval");
  expect(held).toMatchObject({ outcome: "needs_approval", approved_by: null, total_rows: 0, finished_at: null });
  expect(held.error).toContain("would delete 18 of 20 tracked rows (90%), over the 20% limit");
  expect(held.plan).toMatchObject({ counts: { delete: 18 }, tracked: 20, exceeded: [expect.stringContaining("90%")] });
  expect(await count(dst)).toBe(20);
  expect((await syncAttributes(ws.admin, syncId)).last_run).toMatchObject({ id: Number(runId), outcome: "needs_approval" });
  // Another run cannot start while one waits.
  const busy = await ws.admin.post("/api/v1/schedule_syncs", { schedule_sync: { sync_id: syncId } });
  expect(busy.status()).toBe(424);
  expect((await busy.json()).message).toContain("waiting for approval");

  // Approving: not for a Viewer, not from another workspace, not a run of another sync.
  const approvePath = `/api/v1/syncs/${syncId}/sync_runs/${runId}/approve`;
  expect((await ws.viewer.post(approvePath)).status()).toBe(403);
  expect((await other.admin.post(approvePath)).status()).toBe(404);
  const foreign = await guardedSync(other.admin, 1);
  tables.push(foreign.src, foreign.dst);
  expect((await other.admin.post(`/api/v1/syncs/${foreign.syncId}/sync_runs/${runId}/approve`)).status()).toBe(404);

  const approved = await ws.admin.post(approvePath);
  expect(approved.status(), await approved.text()).toBe(200);
  const who = await actorName(ws.admin);
  expect((await approved.json()).data.attributes).toMatchObject({ status: "queued", approved_by: who, error: null });
  const done = await waitForRun(ws.admin, syncId, runId);
  expect(done).toMatchObject({ status: "success", outcome: "succeeded", approved_by: who, total_rows: 18 });
  expect(await count(dst)).toBe(2);
  // Who approved is shown to those who may read the members or the audit log, like canceled_by.
  expect((await runAttributes(ws.viewer, syncId, runId)).approved_by).toBeNull();

  const again = await ws.admin.post(approvePath);
  expect(again.status()).toBe(409);
  expect((await again.json()).message).toBe(
    `Sync run ${runId} is not waiting for approval (its status is success); only a run stopped by the sync's limits can be approved.`,
  );

  const audit = await ws.admin.get(`/api/v1/audit_logs?resource_type=sync&resource_id=${syncId}&per_page=100`);
  const entries = ((await audit.json()).data as { attributes: { action: string; metadata: Record<string, unknown> } }[]).map((e) => e.attributes);
  expect(entries.filter((e) => e.action === "approve")).toEqual([expect.objectContaining({ metadata: { sync_run_id: Number(runId) } })]);
});

test("canceling a held run drops it: nothing written, outcome canceled", async () => {
  const { syncId, src, dst } = await guardedSync(ws.admin, 10);
  tables.push(src, dst);
  expect(await waitForRun(ws.admin, syncId, await trigger(ws.admin, syncId))).toMatchObject({ status: "success" });
  await sql(`DELETE FROM ${src}`);
  const runId = await trigger(ws.admin, syncId);
  const held = await waitForRun(ws.admin, syncId, runId, (a) => a.status === "needs_approval");
  expect(held.error).toContain("would run on an empty extract (the model returned no rows while the sync tracks 10), which is refused");
  const canceled = await ws.admin.delete(`/api/v1/schedule_syncs/${syncId}`);
  expect(canceled.status(), await canceled.text()).toBe(200);
  expect((await canceled.json()).data.attributes).toMatchObject({ status: "failed", outcome: "canceled" });
  expect(await count(dst)).toBe(10);
  expect((await ws.admin.post(`/api/v1/syncs/${syncId}/sync_runs/${runId}/approve`)).status()).toBe(409);
});

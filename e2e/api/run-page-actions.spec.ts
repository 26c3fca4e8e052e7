// What the run page's actions read (issue 35, point 1): a run held for approval keeps sample rows
// of what it would delete or change (GET …/sync_runs/{id}/plan, the records' permission: a role that
// may read runs but not records gets a 403, another workspace a 404); approving drops them. A run's
// failed records count as undelivered (GET …/sync_runs/{id}/undelivered) until a later run delivers
// them.
import { expect, test } from "@playwright/test";
import { memberWithRole, roleIds } from "../support/api";
import { dataWorkspace, sql, type DataWorkspace } from "../support/data";
import { guardedSync, rejectingSync, trigger, waitForRun } from "../support/run-scenarios";

let ws: DataWorkspace;
let other: DataWorkspace;
const tables: string[] = [];

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  ws = await dataWorkspace("run-actions");
  other = await dataWorkspace("run-actions-other");
});

test.afterAll(async () => {
  await ws?.dispose();
  await other?.dispose();
  for (const table of tables) await sql(`DROP TABLE IF EXISTS ${table}`);
});

test("a held run keeps sample rows of what it would delete; only readers of records see them; approving drops them", async ({ request }) => {
  test.setTimeout(180_000);
  const { syncId, src, dst } = await guardedSync(ws.admin, 20);
  tables.push(src, dst);
  const first = await trigger(ws.admin, syncId);
  expect(await waitForRun(ws.admin, syncId, first)).toMatchObject({ status: "success" });
  // Its first run had nothing tracked for its limits (all measured against tracked rows): it did not plan.
  expect((await ws.admin.get(`/api/v1/syncs/${syncId}/sync_runs/${first}/plan`)).status()).toBe(404);
  // A later run of the guarded sync that went on keeps its plan, not its sample rows.
  const second = await trigger(ws.admin, syncId);
  expect(await waitForRun(ws.admin, syncId, second)).toMatchObject({ status: "success" });
  const kept = await ws.admin.get(`/api/v1/syncs/${syncId}/sync_runs/${second}/plan`);
  expect(kept.status(), await kept.text()).toBe(200);
  expect((await kept.json()).data).toMatchObject({ counts: { unchanged: 20 }, tracked: 20, samples: null });
  await sql(`DELETE FROM ${src} WHERE id > 2`);
  const runId = await trigger(ws.admin, syncId);
  expect(await waitForRun(ws.admin, syncId, runId, (a) => a.status === "needs_approval")).toMatchObject({ status: "needs_approval" });

  const path = `/api/v1/syncs/${syncId}/sync_runs/${runId}/plan`;
  const res = await ws.admin.get(path);
  expect(res.status(), await res.text()).toBe(200);
  const plan = (await res.json()).data;
  expect(plan).toMatchObject({ sync_run_id: Number(runId), counts: { delete: 18 }, tracked: 20, exceeded: [expect.stringContaining("would delete 18 of 20")] });
  expect(plan.samples.delete).toHaveLength(5);
  expect(plan.samples.delete[0]).toMatchObject({ primary_key: expect.any(String), row: null });
  expect(plan).not.toHaveProperty("changes");

  // Records' permission: a Viewer reads them; a role reading runs but not records may not; another workspace sees nothing.
  expect((await ws.viewer.get(path)).status()).toBe(200);
  const admin = ws.admin;
  const role = await admin.post("/enterprise/api/v1/roles", {
    role: { role_name: `Runs only ${Date.now()}`, policies: { permissions: { sync: { read: true }, sync_run: { read: true } } } },
  });
  expect(role.status(), await role.text()).toBe(201);
  const runsOnly = await memberWithRole(request, { id: ws.workspaceId, admin, roles: await roleIds(admin) }, (await role.json()).data.attributes.role_name);
  expect((await runsOnly.api.get(`/api/v1/syncs/${syncId}/sync_runs/${runId}`)).status()).toBe(200);
  const refused = await runsOnly.api.get(path);
  expect(refused.status()).toBe(403);
  expect(JSON.stringify(await refused.json())).not.toContain("example.com");
  expect((await other.admin.get(path)).status()).toBe(404);

  // Approved: it plans again and goes on; the samples it was held with are gone.
  const approved = await ws.admin.post(`/api/v1/syncs/${syncId}/sync_runs/${runId}/approve`, {});
  expect(approved.status(), await approved.text()).toBe(200);
  expect(await waitForRun(ws.admin, syncId, runId)).toMatchObject({ status: "success" });
  const after = await ws.admin.get(path);
  expect(after.status(), await after.text()).toBe(200);
  expect((await after.json()).data.samples).toBeNull();

  // A sync without limits in force keeps no plan: a 404 with a sentence.
  const plain = await rejectingSync(ws.admin, 5, 0);
  tables.push(...plain.tables);
  const plainRun = await trigger(ws.admin, plain.syncId);
  await waitForRun(ws.admin, plain.syncId, plainRun);
  const none = await ws.admin.get(`/api/v1/syncs/${plain.syncId}/sync_runs/${plainRun}/plan`);
  expect(none.status()).toBe(404);
  expect((await none.json()).message).toContain("kept no plan");
});

test("a run's failed records stay undelivered until a later run delivers them", async () => {
  test.setTimeout(180_000);
  const { syncId, tables: made } = await rejectingSync(ws.admin, 20, 3);
  tables.push(...made);
  const first = await trigger(ws.admin, syncId);
  expect(await waitForRun(ws.admin, syncId, first)).toMatchObject({ status: "success", failed_rows: 3 });
  const undelivered = async (runId: string) => {
    const res = await ws.admin.get(`/api/v1/syncs/${syncId}/sync_runs/${runId}/undelivered`);
    expect(res.status(), await res.text()).toBe(200);
    return (await res.json()).data;
  };
  expect(await undelivered(first)).toEqual({ sync_run_id: Number(first), failed_rows: 3, undelivered_rows: 3 });
  // A Viewer reads it (runs' permission); another workspace gets a 404.
  expect((await ws.viewer.get(`/api/v1/syncs/${syncId}/sync_runs/${first}/undelivered`)).status()).toBe(200);
  expect((await other.admin.get(`/api/v1/syncs/${syncId}/sync_runs/${first}/undelivered`)).status()).toBe(404);

  // One of the three is fixed at the source: the retry delivers it, the other two fail again.
  const src = made[0];
  await sql(`UPDATE ${src} SET email = 'fixed@example.com' WHERE id = 1`);
  const retry = await trigger(ws.admin, syncId);
  expect(await waitForRun(ws.admin, syncId, retry)).toMatchObject({ status: "success", failed_rows: 2 });
  expect(await undelivered(first)).toMatchObject({ failed_rows: 3, undelivered_rows: 2 });

  // All fixed: the next run delivers them, and nothing of the first run is left undelivered.
  await sql(`UPDATE ${src} SET email = 'u' || id || '@example.com' WHERE email IS NULL`);
  const last = await trigger(ws.admin, syncId);
  expect(await waitForRun(ws.admin, syncId, last)).toMatchObject({ status: "success", failed_rows: 0 });
  expect(await undelivered(first)).toMatchObject({ failed_rows: 3, undelivered_rows: 0 });
  expect(await undelivered(retry)).toMatchObject({ failed_rows: 2, undelivered_rows: 0 });
  expect(await undelivered(last)).toMatchObject({ failed_rows: 0, undelivered_rows: 0 });
});

// Issue 35, point 2 ("No cost surprises") over real HTTP: the plan of an unsaved mapping (a null
// policy edit re-sends every delivered row) without saving it, refused to whoever may not edit the
// sync; and the guard's change limit on updates (max_change_rows), which holds such a run for approval.
import { expect, test } from "@playwright/test";
import { expectError, memberWithRole } from "../support/api";
import { dataWorkspace, sql, sqlRows, type DataWorkspace } from "../support/data";
import { guardedSync, postPlan, syncAttributes, trigger, waitForRun } from "../support/run-scenarios";

let ws: DataWorkspace;
let other: DataWorkspace;
const tables: string[] = [];

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  ws = await dataWorkspace("cost-surprises");
  other = await dataWorkspace("cost-surprises-other");
});

test.afterAll(async () => {
  await ws?.dispose();
  await other?.dispose();
  for (const table of tables) await sql(`DROP TABLE IF EXISTS ${table}`);
});

const SAVED = [
  { from: "id", to: "id", mapping_type: "standard" },
  { from: "email", to: "email", mapping_type: "standard" },
];
/** The same columns, one null policy changed: every row's fingerprint changes. */
const EDITED = [SAVED[0], { ...SAVED[1], null_policy: "skip" }];

/** A PostgreSQL sync that delivered `rows` rows in one run. */
async function deliveredSync(rows: number): Promise<{ syncId: number; dst: string }> {
  const { syncId, src, dst } = await guardedSync(ws.admin, rows);
  tables.push(src, dst);
  const first = await waitForRun(ws.admin, syncId, await trigger(ws.admin, syncId));
  expect(first.status, JSON.stringify(first)).toBe("success");
  return { syncId, dst };
}

const plan = async (api: DataWorkspace["admin"], syncId: number, body?: unknown) => {
  const res = await postPlan(api, syncId, body);
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()).data;
};

test("the plan of an unsaved mapping shows every delivered row re-sent, and saves nothing", async ({ request }) => {
  const { syncId, dst } = await deliveredSync(12);
  // As saved: nothing to send.
  expect((await plan(ws.admin, syncId)).counts).toMatchObject({ insert: 0, update: 0, delete: 0, unchanged: 12 });

  const proposed = await plan(ws.admin, syncId, { sample_size: 2, sync: { configuration: EDITED } });
  expect(proposed).toMatchObject({ sync_id: syncId, tracked: 12, counts: { read: 12, insert: 0, update: 12, delete: 0, unchanged: 0 }, exceeded: [] });
  expect(proposed.samples.update).toHaveLength(2);
  // With unsaved limits too: the run it would make is named as held.
  const capped = await plan(ws.admin, syncId, { sync: { configuration: EDITED, guard: { max_change_rows: 5 } } });
  expect(capped.exceeded).toEqual(["would change 12 rows (12 updates, 0 deletes), over the limit of 5 rows"]);

  // Nothing was saved, written or run.
  expect((await syncAttributes(ws.admin, syncId)).configuration).toEqual(SAVED);
  expect((await syncAttributes(ws.admin, syncId)).guard).toBeNull();
  expect((await plan(ws.admin, syncId)).counts.update).toBe(0);
  expect(Number((await sqlRows<{ n: number }>(`SELECT count(*)::int AS n FROM ${dst}`))[0].n)).toBe(12);
  expect((await (await ws.admin.get(`/api/v1/syncs/${syncId}/sync_runs`)).json()).data).toHaveLength(1);

  // What a save would refuse is a 422 on its field; an unknown field names itself.
  const bad = await expectError(await ws.admin.post(`/api/v1/syncs/${syncId}/plan`, { sync: { configuration: [{ ...SAVED[1], null_policy: "drop" }] } }), 422, "validation_failed");
  expect(bad.message).toContain("null_policy");
  const unknown = await expectError(await ws.admin.post(`/api/v1/syncs/${syncId}/plan`, { sync: { name: "x" } }), 422, "validation_failed");
  expect(unknown.message).toContain("name");

  // Probing: a Viewer may not plan at all; another workspace's sync is a 404 (its configuration is not checked first).
  await expectError(await ws.viewer.post(`/api/v1/syncs/${syncId}/plan`, { sync: { configuration: EDITED } }), 403, "forbidden");
  await expectError(await other.admin.post(`/api/v1/syncs/${syncId}/plan`, { sync: { configuration: EDITED } }), 404, "not_found");
  // A role that may run syncs but not change them plans the saved sync only.
  const roleName = `runs-syncs-${Date.now()}`;
  const roleRes = await ws.admin.post("/enterprise/api/v1/roles", {
    role: { role_name: roleName, policies: { permissions: { sync: { create: true, read: true, update: false, delete: false } } } },
  });
  expect(roleRes.status(), await roleRes.text()).toBe(201);
  const runner = await memberWithRole(request, { id: ws.workspaceId, admin: ws.admin, roles: { [roleName]: Number((await roleRes.json()).data.id) } }, roleName);
  const refused = await expectError(await runner.api.post(`/api/v1/syncs/${syncId}/plan`, { sync: { configuration: EDITED } }), 403, "forbidden");
  expect(refused.message).toContain('may not update syncs, so it may plan only the saved sync: leave out "sync"');
  expect((await plan(runner.api, syncId)).counts.update).toBe(0);
});

test("the change limit holds a run that would update more rows than allowed; the limits are shown", async () => {
  const { syncId } = await deliveredSync(10);
  // A database destination keeps no limit on updates by default.
  expect((await syncAttributes(ws.admin, syncId)).effective_guard).toEqual({
    max_delete_percent: 20,
    max_change_percent: null,
    max_change_rows: null,
    refuse_empty_extract: true,
  });
  const bad = await expectError(await ws.admin.put(`/api/v1/syncs/${syncId}`, { sync: { guard: { max_change_rows: 2.5 } } }), 422, "validation_failed");
  expect(bad.message).toContain("sync.guard.max_change_rows: must be a whole number of rows");
  const set = await ws.admin.put(`/api/v1/syncs/${syncId}`, { sync: { guard: { max_change_rows: 4 }, configuration: EDITED } });
  expect(set.status(), await set.text()).toBe(200);
  expect((await set.json()).data.attributes.effective_guard).toMatchObject({ max_change_rows: 4, max_change_percent: null });

  const held = await waitForRun(ws.admin, syncId, await trigger(ws.admin, syncId), (a) => a.status === "needs_approval" || a.status === "success" || a.status === "failed");
  expect(held.status).toBe("needs_approval");
  expect(held.error).toBe(
    "Stopped before writing anything: it would change 10 rows (10 updates, 0 deletes), over the limit of 4 rows. Approve the run to go on, or cancel it.",
  );
  expect(held.plan).toMatchObject({ counts: { update: 10 }, guard: { max_change_rows: 4 } });
});

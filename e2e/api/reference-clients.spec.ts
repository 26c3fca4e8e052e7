// Issue 35, point 5 (b) and point 6 over real HTTP. The reference console deletes a model or a connector
// with a bare DELETE and says "deleted successfully" whatever the answer: the answer and the effect
// agree, as on the reference server (the syncs that use it go too, their runs stopped, each deletion in
// the audit log). GET …/dependents says what goes before anyone asks. A model's primary key must be a
// column of its query.
import { expect, test } from "@playwright/test";
import { expectError, fieldErrors, memberWithRole, newWorkspace, type TestWorkspace } from "../support/api";
import { ensureTestDatabase, pgConfiguration, sql, unique } from "../support/data";
import { holdingDestination, type HoldingDestination } from "../support/holding-destination";
import { largeSourceSync, trigger, waitForRun } from "../support/run-scenarios";
import type { Api } from "../support/api";

type Json = Record<string, unknown>;
type Dependents = {
  models: { id: number; name: string }[];
  syncs: { id: number; name: string; status: string; running: boolean }[];
  waiting_syncs: { id: number; name: string; run_after: number[] }[];
  may_delete: boolean;
  refusal: string | null;
};

let destination: HoldingDestination;
const table = unique("e2e_refclients");
const tables: string[] = [table];

test.describe.configure({ timeout: 120_000 });

test.beforeAll(async () => {
  await ensureTestDatabase();
  await sql(`CREATE TABLE ${table} (id integer PRIMARY KEY, email text, "Email_Upper" text)`);
  await sql(`INSERT INTO ${table} SELECT g, 'u' || g || '@example.com', 'x' FROM generate_series(1, 5) g`);
  destination = await holdingDestination();
});

test.afterAll(async () => {
  destination?.release();
  await destination?.close();
  for (const t of tables) await sql(`DROP TABLE IF EXISTS ${t}`);
});

async function created(api: Api, path: string, data: unknown): Promise<number> {
  const res = await api.post(path, data);
  expect(res.status(), await res.text()).toBe(path === "/api/v1/syncs" ? 200 : 201);
  return Number((await res.json()).data.id);
}

/** A PostgreSQL source, an HTTP destination with its stream, and a model of `table`. */
async function pipeline(api: Api) {
  const sourceId = await created(api, "/api/v1/connectors", {
    connector: { name: unique("src"), connector_type: "source", connector_name: "Postgresql", configuration: pgConfiguration() },
  });
  const destinationId = await created(api, "/api/v1/connectors", {
    connector: { name: unique("hook"), connector_type: "destination", connector_name: "Http", configuration: { destination_url: destination.url, timeout: 60, batch_size: 100 } },
  });
  const discovered = await api.get(`/api/v1/connectors/${destinationId}/discover?refresh=true`);
  expect(discovered.status(), await discovered.text()).toBe(200);
  const model = async () =>
    created(api, "/api/v1/models", { model: { name: unique("m"), query: `SELECT * FROM ${table}`, query_type: "raw_sql", primary_key: "id", connector_id: sourceId } });
  const modelId = await model();
  const sync = (name: string, onModel = modelId) =>
    created(api, "/api/v1/syncs", {
      sync: {
        name,
        source_id: sourceId,
        destination_id: destinationId,
        model_id: onModel,
        schedule_type: "manual",
        sync_mode: "full_refresh",
        stream_name: "webhook",
        configuration: [{ from: "email", to: "email", mapping_type: "standard" }],
      },
    });
  return { sourceId, destinationId, modelId, model, sync };
}

async function dependents(api: Api, path: string): Promise<Dependents> {
  const res = await api.get(`${path}/dependents`);
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()).data.attributes;
}

async function auditTrail(ws: TestWorkspace, type: string, id: number): Promise<Json[]> {
  const res = await ws.admin.get(`/api/v1/audit_logs?resource_type=${type}&resource_id=${id}`);
  expect(res.status(), await res.text()).toBe(200);
  return ((await res.json()).data as { attributes: Json }[]).map((e) => e.attributes);
}

test("the reference console's DELETE /models/{id} deletes the model and its syncs, stops a running run, and the audit log says so", async ({ request }) => {
  const ws = await newWorkspace(request, `refclients ${unique("m")}`);
  const { syncId, table: big } = await largeSourceSync(ws.admin, destination.url, 4_000);
  tables.push(big);
  const modelId = Number((await (await ws.admin.get(`/api/v1/syncs/${syncId}`)).json()).attributes.model_id);
  destination.hold();
  const runId = await trigger(ws.admin, syncId);
  await waitForRun(ws.admin, syncId, runId, () => destination.held() > 0);

  const before = await dependents(ws.admin, `/api/v1/models/${modelId}`);
  expect(before).toMatchObject({ models: [], syncs: [{ id: syncId, running: true }], waiting_syncs: [], may_delete: true, refusal: null });

  // Exactly what the reference console sends: a bare DELETE.
  const deleted = await ws.admin.delete(`/api/v1/models/${modelId}`);
  expect(deleted.status(), await deleted.text()).toBe(204);
  destination.release();
  await expectError(await ws.admin.get(`/api/v1/models/${modelId}`), 404, "not_found");
  await expectError(await ws.admin.get(`/api/v1/syncs/${syncId}`), 404, "not_found");
  await expectError(await ws.admin.get(`/api/v1/syncs/${syncId}/sync_runs/${runId}`), 404, "not_found");
  expect(((await (await ws.admin.get(`/api/v1/syncs?model_id=${modelId}`)).json()).data as unknown[]).length).toBe(0);

  expect(await auditTrail(ws, "sync", syncId)).toEqual(
    expect.arrayContaining([expect.objectContaining({ action: "delete", metadata: expect.objectContaining({ deleted_with_model: modelId }) })]),
  );
  expect(await auditTrail(ws, "model", modelId)).toEqual(
    expect.arrayContaining([expect.objectContaining({ action: "delete", metadata: expect.objectContaining({ syncs: [syncId] }) })]),
  );
});

test("DELETE /connectors/{id} takes its models and every sync that uses it; syncs that ran after a deleted one stop waiting for it", async ({ request }) => {
  const ws = await newWorkspace(request, `refclients ${unique("c")}`);
  const source = await pipeline(ws.admin);
  const onSource = await source.sync(unique("on-source"));
  // A second pipeline whose sync runs after the first: it stays, and no longer waits.
  const other = await pipeline(ws.admin);
  const follower = await other.sync(unique("follower"));
  const set = await ws.admin.put(`/api/v1/syncs/${follower}/run_after`, { run_after: { sync_ids: [onSource] } });
  expect(set.status(), await set.text()).toBe(200);

  const plan = await dependents(ws.admin, `/api/v1/connectors/${source.sourceId}`);
  expect(plan.models.map((m) => m.id)).toEqual([source.modelId]);
  expect(plan.syncs.map((s) => s.id)).toEqual([onSource]);
  expect(plan.waiting_syncs).toEqual([expect.objectContaining({ id: follower, run_after: [onSource] })]);

  // The reference's destination delete goes the same way: the destination of the other pipeline is kept.
  const deleted = await ws.admin.delete(`/api/v1/connectors/${source.sourceId}`);
  expect(deleted.status(), await deleted.text()).toBe(204);
  await expectError(await ws.admin.get(`/api/v1/connectors/${source.sourceId}`), 404, "not_found");
  await expectError(await ws.admin.get(`/api/v1/models/${source.modelId}`), 404, "not_found");
  await expectError(await ws.admin.get(`/api/v1/syncs/${onSource}`), 404, "not_found");
  const followed = await ws.admin.get(`/api/v1/syncs/${follower}/run_after`);
  expect((await followed.json()).data.attributes).toMatchObject({ sync_ids: [] });
  expect(await auditTrail(ws, "sync", follower)).toEqual(
    expect.arrayContaining([expect.objectContaining({ action: "update", metadata: expect.objectContaining({ run_after_removed: [onSource] }) })]),
  );
  expect(await auditTrail(ws, "model", source.modelId)).toEqual(expect.arrayContaining([expect.objectContaining({ action: "delete" })]));

  // A destination: its syncs go, the source and model stay.
  const destinationSync = await other.sync(unique("second"));
  expect((await ws.admin.delete(`/api/v1/connectors/${other.destinationId}`)).status()).toBe(204);
  for (const id of [follower, destinationSync]) await expectError(await ws.admin.get(`/api/v1/syncs/${id}`), 404, "not_found");
  expect((await ws.admin.get(`/api/v1/models/${other.modelId}`)).status()).toBe(200);
});

test("a caller who may delete models but not syncs gets a 403 naming why, and nothing is deleted; a Viewer sees what would go", async ({ request }) => {
  const ws = await newWorkspace(request, `refclients ${unique("p")}`);
  const role = await ws.admin.post("/enterprise/api/v1/roles", {
    role: {
      role_name: "Modeller",
      role_desc: "Models, not syncs",
      policies: { permissions: { model: { read: true, create: true, delete: true }, connector: { read: true, delete: true }, sync: { read: true } } },
    },
  });
  expect(role.status(), await role.text()).toBe(201);
  const modeller = await memberWithRole(request, ws, "Modeller");
  const viewer = await memberWithRole(request, ws, "Viewer");
  const { modelId, sourceId, model, sync } = await pipeline(ws.admin);
  const syncName = unique("kept");
  const syncId = await sync(syncName);

  const seen = await dependents(modeller.api, `/api/v1/models/${modelId}`);
  expect(seen.may_delete).toBe(false);
  expect(seen.refusal).toMatch(/^Your role \(Modeller\) may not delete syncs, and deleting model \d+ ".*" would delete sync \d+ "/);
  const refused = await expectError(await modeller.api.delete(`/api/v1/models/${modelId}`), 403, "forbidden");
  expect(refused.message).toContain(`sync ${syncId} "${syncName}"`);
  const refusedConnector = await expectError(await modeller.api.delete(`/api/v1/connectors/${sourceId}`), 403, "forbidden");
  expect(refusedConnector.message).toMatch(/may not delete syncs/);
  expect((await ws.admin.get(`/api/v1/models/${modelId}`)).status()).toBe(200);
  expect((await ws.admin.get(`/api/v1/syncs/${syncId}`)).status()).toBe(200);

  // A model no sync uses is theirs to delete.
  const unused = await model();
  expect((await modeller.api.delete(`/api/v1/models/${unused}`)).status()).toBe(204);

  const viewed = await dependents(viewer.api, `/api/v1/models/${modelId}`);
  expect(viewed).toMatchObject({ syncs: [{ id: syncId, name: syncName }], may_delete: false, refusal: "Your role (Viewer) may not delete models." });
  await expectError(await viewer.api.delete(`/api/v1/models/${modelId}`), 403, "forbidden");

  // Another workspace's model reads like one that does not exist.
  const elsewhere = await newWorkspace(request, `refclients ${unique("x")}`);
  await expectError(await elsewhere.admin.get(`/api/v1/models/${modelId}/dependents`), 404, "not_found");
  await expectError(await elsewhere.admin.delete(`/api/v1/models/${modelId}`), 404, "not_found");
  expect((await ws.admin.get(`/api/v1/syncs/${syncId}`)).status()).toBe(200);
});

test("a model's primary_key must be a column of its query's result, on create and update", async ({ request }) => {
  const ws = await newWorkspace(request, `refclients ${unique("k")}`);
  const { sourceId, modelId } = await pipeline(ws.admin);
  const body = (overrides: Json) => ({ model: { name: unique("m"), query: `SELECT id, email FROM ${table}`, query_type: "raw_sql", connector_id: sourceId, ...overrides } });

  const missing = await expectError(await ws.admin.post("/api/v1/models", body({ primary_key: "user_id" })), 422, "validation_failed");
  expect(fieldErrors(missing)).toEqual([{ path: "model.primary_key", message: `"user_id" is not a column of the query's result; use one of: id, email` }]);
  const wrongCase = await expectError(await ws.admin.post("/api/v1/models", body({ query: `SELECT * FROM ${table}`, primary_key: "email_upper" })), 422, "validation_failed");
  expect(fieldErrors(wrongCase)[0].message).toContain('did you mean "Email_Upper"?');
  expect((await ws.admin.post("/api/v1/models", body({ primary_key: "email" }))).status()).toBe(201);

  // Update: a new query that drops the key's column, or a new key that is not a column.
  const dropped = await expectError(await ws.admin.put(`/api/v1/models/${modelId}`, { model: { query: `SELECT email FROM ${table}` } }), 422, "validation_failed");
  expect(fieldErrors(dropped)).toEqual([{ path: "model.primary_key", message: expect.stringMatching(/^"id" is not a column of the query's result; use one of: email$/) }]);
  await expectError(await ws.admin.put(`/api/v1/models/${modelId}`, { model: { primary_key: "nope" } }), 422, "validation_failed");
  expect((await ws.admin.put(`/api/v1/models/${modelId}`, { model: { primary_key: "email" } })).status()).toBe(200);

  // Where the columns cannot be known (the query fails on the source), the model is saved as before.
  expect((await ws.admin.post("/api/v1/models", body({ query: "SELECT * FROM no_such_table_here", primary_key: "id" }))).status()).toBe(201);
});

// The syncs resource over real HTTP, after creation: update (PUT), list, enable/disable and soft
// delete. Creation, schedule rules and references: syncs.spec.ts.
import { expect, test } from "@playwright/test";
import { expectError, fieldErrors } from "../support/api";
import { dataWorkspace, expectLinks, ISO, pgConfiguration, unique, type DataWorkspace } from "../support/data";

let ws: DataWorkspace;
let sourceId: number;
let destinationId: number;
let modelId: number;

async function post(path: string, data: unknown, status = 201) {
  const res = await ws.admin.post(path, data);
  expect(res.status(), await res.text()).toBe(status);
  return res.json();
}

test.beforeAll(async () => {
  ws = await dataWorkspace("syncs");
  const connector = (type: string) => ({
    connector: {
      name: unique(type),
      connector_type: type,
      connector_name: "Postgresql",
      configuration: pgConfiguration(),
    },
  });
  sourceId = Number((await post("/api/v1/connectors", connector("source"))).data.id);
  destinationId = Number((await post("/api/v1/connectors", connector("destination"))).data.id);
  await post(
    "/api/v1/catalogs",
    { connector_id: destinationId, catalog: { streams: [{ name: "contacts" }, { name: "deals" }] } },
    200,
  );
  modelId = Number(
    (
      await post("/api/v1/models", {
        model: {
          name: "users",
          query: "SELECT * FROM users",
          query_type: "raw_sql",
          primary_key: "id",
          connector_id: sourceId,
        },
      })
    ).data.id,
  );
});

const syncBody = (overrides: Record<string, unknown> = {}) => ({
  sync: {
    name: unique("sync"),
    source_id: sourceId,
    destination_id: destinationId,
    model_id: modelId,
    schedule_type: "interval",
    sync_interval: 15,
    sync_interval_unit: "minutes",
    sync_mode: "incremental",
    stream_name: "contacts",
    cursor_field: "updated_at",
    configuration: [{ from: "email", to: "email", mapping_type: "standard" }],
    ...overrides,
  },
});

function expectSync(s: { id: unknown; type: unknown; attributes: Record<string, unknown> }) {
  expect(typeof s.id).toBe("string");
  expect(s.type).toBe("syncs");
  const a = s.attributes;
  expect(a.source_id).toBe(sourceId);
  expect(a.destination_id).toBe(destinationId);
  expect(a.model_id).toBe(modelId);
  for (const key of [
    "name",
    "description",
    "schedule_type",
    "sync_mode",
    "stream_name",
    "status",
    "timezone",
  ])
    expect(typeof a[key]).toBe("string");
  expect(typeof a.detect_deletes).toBe("boolean");
  expect(a.created_at).toMatch(ISO);
  expect(a.updated_at).toMatch(ISO);
  expect(a.source).toMatchObject({
    id: sourceId,
    name: expect.any(String),
    connector_name: "Postgresql",
    icon: expect.any(String),
  });
  expect(a.destination).toMatchObject({ id: destinationId, connector_name: "Postgresql" });
  // The model summary grew the reference's members (issue 13.7; e2e/api/multiwoven-syncs.spec.ts checks them).
  expect(a.model).toMatchObject({ id: modelId, name: "users" });
  expect(a).toHaveProperty("last_run");
  expect(a).toHaveProperty("current_cursor_field");
}

async function createSync(overrides: Record<string, unknown> = {}) {
  const res = await ws.admin.post("/api/v1/syncs", syncBody(overrides));
  expect(res.status(), await res.text()).toBe(200);
  return res.json();
}

test.afterAll(async () => {
  await ws?.dispose();
});

test("PUT /syncs/{id} returns {success, message, data}; cursor_field is fixed", async () => {
  const created = await createSync();
  const res = await ws.admin.put(`/api/v1/syncs/${created.id}`, {
    sync: {
      schedule_type: "cron_expression",
      cron_expression: "0 6 * * *",
      stream_name: "deals",
      sync_mode: "full_refresh",
      description: "nightly",
    },
  });
  expect(res.status(), await res.text()).toBe(200);
  const body = await res.json();
  expect(body.success).toBe(true);
  expect(typeof body.message).toBe("string");
  expectSync(body.data);
  expect(body.data.attributes).toMatchObject({
    schedule_type: "cron_expression",
    cron_expression: "0 6 * * *",
    sync_interval: null,
    stream_name: "deals",
    sync_mode: "full_refresh",
    description: "nightly",
    cursor_field: "updated_at",
  });
  const cursor = await expectError(
    await ws.admin.put(`/api/v1/syncs/${created.id}`, { sync: { cursor_field: "id" } }),
    422,
    "validation_failed",
  );
  expect(fieldErrors(cursor)).toEqual([expect.objectContaining({ path: "sync.cursor_field" })]);
  // Sending the same cursor_field back is fine.
  expect(
    (await ws.admin.put(`/api/v1/syncs/${created.id}`, { sync: { cursor_field: "updated_at" } })).status(),
  ).toBe(200);
  await expectError(
    await ws.admin.put(`/api/v1/syncs/${created.id}`, { sync: { schedule_type: "interval" } }),
    422,
    "validation_failed",
  );
  await expectError(
    await ws.admin.put(`/api/v1/syncs/${created.id}`, { sync: { stream_name: "x" } }),
    422,
    "validation_failed",
  );
  const interval = await createSync();
  const negative = await expectError(
    await ws.admin.put(`/api/v1/syncs/${interval.id}`, { sync: { sync_interval: -1 } }),
    422,
    "validation_failed",
  );
  expect(fieldErrors(negative)).toEqual([expect.objectContaining({ path: "sync.sync_interval" })]);
  await expectError(
    await ws.viewer.put(`/api/v1/syncs/${created.id}`, { sync: { name: "v" } }),
    403,
    "forbidden",
  );
  await expectError(await ws.admin.put("/api/v1/syncs/99999999", { sync: { name: "v" } }), 404, "not_found");
});

test("GET /syncs lists newest updated first with links; configurations payload", async () => {
  const a = await createSync();
  const b = await createSync();
  await ws.admin.put(`/api/v1/syncs/${a.id}`, { sync: { description: "touched" } });
  const res = await ws.viewer.get("/api/v1/syncs?per_page=2");
  expect(res.status()).toBe(200);
  const list = await res.json();
  expectLinks(list.links);
  expect(list.data.map((s: { id: string }) => s.id)).toEqual([a.id, b.id]);
  list.data.forEach(expectSync);
  await expectError(await ws.viewer.get("/api/v1/syncs?status=sleeping"), 400, "bad_request");

  const conf = await ws.viewer.get("/api/v1/syncs/configurations");
  expect(conf.status()).toBe(200);
  const types = (await conf.json()).data.configurations.catalog_mapping_types;
  expect(Object.keys(types)).toEqual(["standard", "static", "template"]);
  expect(types.standard).toBe("");
  expect(Object.keys(types.static)).toEqual(["string", "number", "boolean", "null"]);
  expect(types.static.number.type).toBe("float");
  expect(types.template.variable.current_timestamp).toMatchObject({
    type: "datetime",
    value: "{{ 'now' | date: '%Y-%m-%dT%H:%M:%S.%L%z' }}",
  });
  expect(Object.keys(types.template.filter)).toEqual(["cast", "regex_replace"]);
});

test("PATCH /syncs/{id}/enable disables and re-enables", async () => {
  const created = await createSync();
  const off = await ws.admin.patch(`/api/v1/syncs/${created.id}/enable`, { enable: false });
  expect(off.status(), await off.text()).toBe(200);
  const offBody = await off.json();
  expectSync(offBody.data);
  expect(offBody.data.attributes).toMatchObject({ status: "disabled", next_run_at: null });
  const on = await (await ws.admin.patch(`/api/v1/syncs/${created.id}/enable`, { enable: true })).json();
  expect(on.data.attributes.status).toBe("pending");
  expect(on.data.attributes.next_run_at).toMatch(ISO);
  await expectError(await ws.admin.patch(`/api/v1/syncs/${created.id}/enable`, {}), 422, "validation_failed");
  await expectError(
    await ws.viewer.patch(`/api/v1/syncs/${created.id}/enable`, { enable: false }),
    403,
    "forbidden",
  );
});

test("DELETE /syncs/{id} soft-deletes: 204, then 404 everywhere; the model stays", async ({
  request,
}) => {
  const ownModel = await post("/api/v1/models", {
    model: {
      name: "own",
      query: "SELECT * FROM users",
      query_type: "raw_sql",
      primary_key: "id",
      connector_id: sourceId,
    },
  });
  const created = await createSync({ model_id: Number(ownModel.data.id) });
  await expectError(await ws.viewer.delete(`/api/v1/syncs/${created.id}`), 403, "forbidden");
  const del = await ws.admin.delete(`/api/v1/syncs/${created.id}`);
  expect(del.status()).toBe(204);
  const gone = await expectError(await ws.admin.get(`/api/v1/syncs/${created.id}`), 404, "not_found");
  expect(gone.message).toContain(`Sync ${created.id}`);
  await expectError(
    await ws.admin.put(`/api/v1/syncs/${created.id}`, { sync: { name: "x" } }),
    404,
    "not_found",
  );
  await expectError(
    await ws.admin.patch(`/api/v1/syncs/${created.id}/enable`, { enable: true }),
    404,
    "not_found",
  );
  await expectError(await ws.admin.get(`/api/v1/syncs/${created.id}/sync_runs`), 404, "not_found");
  await expectError(await ws.admin.delete(`/api/v1/syncs/${created.id}`), 404, "not_found");
  // Once the only sync using it is deleted, the model can go (the soft-deleted sync goes with it).
  expect((await ws.admin.delete(`/api/v1/models/${ownModel.data.id}`)).status()).toBe(204);
  const list = await (await ws.admin.get("/api/v1/syncs?per_page=100")).json();
  expect(list.data.map((s: { id: string }) => s.id)).not.toContain(created.id);
  await expectError(await request.get("/api/v1/syncs"), 401, "unauthorized");
  await expectError(await ws.admin.get("/api/v1/syncs/x1"), 400, "bad_request");
  await expectError(await ws.viewer.post("/api/v1/syncs", syncBody()), 403, "forbidden");
});

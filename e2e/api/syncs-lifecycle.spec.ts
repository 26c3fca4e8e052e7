// The syncs resource over real HTTP, after creation: update (PUT), list, enable/disable and soft
// delete. Creation, schedule rules and references: syncs.spec.ts.
import { expect, test } from "@playwright/test";
import { expectError, fieldErrors } from "../support/api";
import { expectLinks, ISO } from "../support/data";
import { syncsFixture, type SyncsFixture } from "../support/syncs-fixture";

let f: SyncsFixture;
test.beforeAll(async () => {
  f = await syncsFixture();
});
test.afterAll(async () => {
  await f?.ws.dispose();
});

test("PUT /syncs/{id} returns {success, message, data}; cursor_field is fixed", async () => {
  const created = await f.createSync();
  const res = await f.ws.admin.put(`/api/v1/syncs/${created.id}`, {
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
  f.expectSync(body.data);
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
    await f.ws.admin.put(`/api/v1/syncs/${created.id}`, { sync: { cursor_field: "id" } }),
    422,
    "validation_failed",
  );
  expect(fieldErrors(cursor)).toEqual([expect.objectContaining({ path: "sync.cursor_field" })]);
  // Sending the same cursor_field back is fine.
  expect(
    (await f.ws.admin.put(`/api/v1/syncs/${created.id}`, { sync: { cursor_field: "updated_at" } })).status(),
  ).toBe(200);
  await expectError(
    await f.ws.admin.put(`/api/v1/syncs/${created.id}`, { sync: { schedule_type: "interval" } }),
    422,
    "validation_failed",
  );
  await expectError(
    await f.ws.admin.put(`/api/v1/syncs/${created.id}`, { sync: { stream_name: "x" } }),
    422,
    "validation_failed",
  );
  const interval = await f.createSync();
  const negative = await expectError(
    await f.ws.admin.put(`/api/v1/syncs/${interval.id}`, { sync: { sync_interval: -1 } }),
    422,
    "validation_failed",
  );
  expect(fieldErrors(negative)).toEqual([expect.objectContaining({ path: "sync.sync_interval" })]);
  await expectError(
    await f.ws.viewer.put(`/api/v1/syncs/${created.id}`, { sync: { name: "v" } }),
    403,
    "forbidden",
  );
  await expectError(await f.ws.admin.put("/api/v1/syncs/99999999", { sync: { name: "v" } }), 404, "not_found");
});

test("GET /syncs lists newest updated first with links; configurations payload", async () => {
  const a = await f.createSync();
  const b = await f.createSync();
  await f.ws.admin.put(`/api/v1/syncs/${a.id}`, { sync: { description: "touched" } });
  const res = await f.ws.viewer.get("/api/v1/syncs?per_page=2");
  expect(res.status()).toBe(200);
  const list = await res.json();
  expectLinks(list.links);
  expect(list.data.map((s: { id: string }) => s.id)).toEqual([a.id, b.id]);
  list.data.forEach(f.expectSync);
  await expectError(await f.ws.viewer.get("/api/v1/syncs?status=sleeping"), 400, "bad_request");

  const conf = await f.ws.viewer.get("/api/v1/syncs/configurations");
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
  const created = await f.createSync();
  const off = await f.ws.admin.patch(`/api/v1/syncs/${created.id}/enable`, { enable: false });
  expect(off.status(), await off.text()).toBe(200);
  const offBody = await off.json();
  f.expectSync(offBody.data);
  expect(offBody.data.attributes).toMatchObject({ status: "disabled", next_run_at: null });
  const on = await (await f.ws.admin.patch(`/api/v1/syncs/${created.id}/enable`, { enable: true })).json();
  expect(on.data.attributes.status).toBe("pending");
  expect(on.data.attributes.next_run_at).toMatch(ISO);
  await expectError(await f.ws.admin.patch(`/api/v1/syncs/${created.id}/enable`, {}), 422, "validation_failed");
  await expectError(
    await f.ws.viewer.patch(`/api/v1/syncs/${created.id}/enable`, { enable: false }),
    403,
    "forbidden",
  );
});

test("DELETE /syncs/{id} soft-deletes: 204, then 404 everywhere; the model stays", async ({
  request,
}) => {
  const ownModel = await f.post("/api/v1/models", {
    model: {
      name: "own",
      query: "SELECT * FROM users",
      query_type: "raw_sql",
      primary_key: "id",
      connector_id: f.sourceId,
    },
  });
  const created = await f.createSync({ model_id: Number(ownModel.data.id) });
  await expectError(await f.ws.viewer.delete(`/api/v1/syncs/${created.id}`), 403, "forbidden");
  const del = await f.ws.admin.delete(`/api/v1/syncs/${created.id}`);
  expect(del.status()).toBe(204);
  const gone = await expectError(await f.ws.admin.get(`/api/v1/syncs/${created.id}`), 404, "not_found");
  expect(gone.message).toContain(`Sync ${created.id}`);
  await expectError(
    await f.ws.admin.put(`/api/v1/syncs/${created.id}`, { sync: { name: "x" } }),
    404,
    "not_found",
  );
  await expectError(
    await f.ws.admin.patch(`/api/v1/syncs/${created.id}/enable`, { enable: true }),
    404,
    "not_found",
  );
  await expectError(await f.ws.admin.get(`/api/v1/syncs/${created.id}/sync_runs`), 404, "not_found");
  await expectError(await f.ws.admin.delete(`/api/v1/syncs/${created.id}`), 404, "not_found");
  // Once the only sync using it is deleted, the model can go (the soft-deleted sync goes with it).
  expect((await f.ws.admin.delete(`/api/v1/models/${ownModel.data.id}`)).status()).toBe(204);
  const list = await (await f.ws.admin.get("/api/v1/syncs?per_page=100")).json();
  expect(list.data.map((s: { id: string }) => s.id)).not.toContain(created.id);
  await expectError(await request.get("/api/v1/syncs"), 401, "unauthorized");
  await expectError(await f.ws.admin.get("/api/v1/syncs/x1"), 400, "bad_request");
  await expectError(await f.ws.viewer.post("/api/v1/syncs", f.syncBody()), 403, "forbidden");
});

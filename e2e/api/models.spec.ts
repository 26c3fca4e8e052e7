import { expect, test } from "@playwright/test";
import { expectError, fieldErrors } from "../support/api";
import { dataWorkspace, expectLinks, ISO, pgConfiguration, unique, type DataWorkspace } from "../support/data";

let ws: DataWorkspace;
let sourceId: number;
let destinationId: number;

async function connector(type: "source" | "destination"): Promise<number> {
  const res = await ws.admin.post("/api/v1/connectors", {
    connector: { name: unique(type), connector_type: type, connector_name: "Postgresql", configuration: pgConfiguration() },
  });
  expect(res.status(), await res.text()).toBe(201);
  return Number((await res.json()).data.id);
}

test.beforeAll(async () => {
  ws = await dataWorkspace("models");
  sourceId = await connector("source");
  destinationId = await connector("destination");
});

const body = (overrides: Record<string, unknown> = {}) => ({
  model: { name: unique("model"), description: "users", query: "SELECT * FROM users", query_type: "raw_sql", primary_key: "id", connector_id: sourceId, ...overrides },
});

function expectModel(m: { id: unknown; type: unknown; attributes: Record<string, unknown> }) {
  expect(typeof m.id).toBe("string");
  expect(m.type).toBe("models");
  const a = m.attributes;
  for (const key of ["name", "description", "query", "query_type", "primary_key"]) expect(typeof a[key]).toBe("string");
  expect(typeof a.configuration).toBe("object");
  expect(a.connector_id).toBe(sourceId);
  expect(a.created_at).toMatch(ISO);
  expect(a.updated_at).toMatch(ISO);
}

test.afterAll(async () => {
  await ws?.dispose();
});

test("POST /models creates; GET /models/{id} returns {data: Model}", async () => {
  const res = await ws.admin.post("/api/v1/models", body({ configuration: { table: "users" } }));
  expect(res.status(), await res.text()).toBe(201);
  const created = (await res.json()).data;
  expectModel(created);
  expect(created.attributes.configuration).toEqual({ table: "users" });
  expect(created.attributes.connector).toMatchObject({ id: sourceId, connector_name: "Postgresql" });

  const shown = await ws.viewer.get(`/api/v1/models/${created.id}`);
  expect(shown.status()).toBe(200);
  const json = await shown.json();
  expect(Object.keys(json)).toEqual(["data"]);
  expectModel(json.data);
  expect(json.data.attributes.query).toBe("SELECT * FROM users");
});

test("GET /models lists newest first, filters by connector, paginates", async () => {
  const first = (await (await ws.admin.post("/api/v1/models", body())).json()).data;
  const second = (await (await ws.admin.post("/api/v1/models", body())).json()).data;
  const res = await ws.viewer.get(`/api/v1/models?connector_id=${sourceId}&per_page=2`);
  expect(res.status()).toBe(200);
  const list = await res.json();
  expectLinks(list.links);
  list.data.forEach(expectModel);
  expect(list.data.map((m: { id: string }) => m.id)).toEqual([second.id, first.id]);
  expect((await (await ws.viewer.get(`/api/v1/models?connector_id=${destinationId}`)).json()).data).toEqual([]);
  await expectError(await ws.viewer.get("/api/v1/models?connector_id=abc"), 400, "bad_request");
});

test("POST /models refuses bad input with clear 422s", async () => {
  const dbt = await expectError(await ws.admin.post("/api/v1/models", body({ query_type: "dbt" })), 422, "validation_failed");
  expect(dbt.message).toMatch(/dbt models are not supported yet/);
  const limit = await expectError(await ws.admin.post("/api/v1/models", body({ query: "SELECT * FROM users LIMIT 10" })), 422, "validation_failed");
  expect(fieldErrors(limit)).toEqual([expect.objectContaining({ path: "model.query" })]);
  await expectError(await ws.admin.post("/api/v1/models", body({ query: "SELECT * FROM users OFFSET 3;" })), 422, "validation_failed");
  const dest = await expectError(await ws.admin.post("/api/v1/models", body({ connector_id: destinationId })), 422, "validation_failed");
  expect(dest.message).toContain("destination");
  const missing = await expectError(await ws.admin.post("/api/v1/models", body({ connector_id: 99999999 })), 422, "validation_failed");
  expect(fieldErrors(missing)).toEqual([expect.objectContaining({ path: "model.connector_id" })]);
  const pk = await expectError(await ws.admin.post("/api/v1/models", body({ primary_key: 7 })), 422, "validation_failed");
  expect(fieldErrors(pk)).toEqual([expect.objectContaining({ path: "model.primary_key" })]);
});

test("PUT /models/{id} updates; DELETE is 204 then 404", async () => {
  const created = (await (await ws.admin.post("/api/v1/models", body())).json()).data;
  const res = await ws.admin.put(`/api/v1/models/${created.id}`, { model: { name: "renamed", query: "SELECT id, email FROM users", unknown_field: 1 } });
  expect(res.status(), await res.text()).toBe(200);
  const updated = (await res.json()).data;
  expectModel(updated);
  expect(updated.attributes).toMatchObject({ name: "renamed", query: "SELECT id, email FROM users", primary_key: "id" });
  await expectError(await ws.admin.put(`/api/v1/models/${created.id}`, { model: { query: "SELECT 1 LIMIT 1" } }), 422, "validation_failed");
  await expectError(await ws.admin.put(`/api/v1/models/${created.id}`, { model: { query_type: "soql" } }), 422, "validation_failed");
  await expectError(await ws.viewer.put(`/api/v1/models/${created.id}`, { model: { name: "v" } }), 403, "forbidden");

  await expectError(await ws.viewer.delete(`/api/v1/models/${created.id}`), 403, "forbidden");
  const del = await ws.admin.delete(`/api/v1/models/${created.id}`);
  expect(del.status()).toBe(204);
  const gone = await expectError(await ws.admin.get(`/api/v1/models/${created.id}`), 404, "not_found");
  expect(gone.message).toContain(`Model ${created.id}`);
  await expectError(await ws.admin.put(`/api/v1/models/${created.id}`, { model: { name: "x" } }), 404, "not_found");
  await expectError(await ws.admin.delete(`/api/v1/models/${created.id}`), 404, "not_found");
});

test("models: other workspace 404, bad id 400, no token 401, Viewer cannot create", async ({ request }) => {
  const created = (await (await ws.admin.post("/api/v1/models", body())).json()).data;
  const other = await dataWorkspace("models-other", request);
  await expectError(await other.admin.get(`/api/v1/models/${created.id}`), 404, "not_found");
  await expectError(await ws.admin.get("/api/v1/models/1.5"), 400, "bad_request");
  await expectError(await request.get(`/api/v1/models/${created.id}`), 401, "unauthorized");
  await expectError(await ws.viewer.post("/api/v1/models", body()), 403, "forbidden");
});

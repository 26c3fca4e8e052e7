import { expect, test } from "@playwright/test";
import { expectError, fieldErrors } from "../support/api";
import { dataWorkspace, ISO, pgConfiguration, unique, type DataWorkspace } from "../support/data";

let ws: DataWorkspace;
let connectorId: number;
let connectorName: string;

test.beforeAll(async () => {
  ws = await dataWorkspace("catalogs");
  connectorName = unique("dest");
  const res = await ws.admin.post("/api/v1/connectors", {
    connector: { name: connectorName, connector_type: "destination", connector_name: "Postgresql", configuration: pgConfiguration() },
  });
  expect(res.status(), await res.text()).toBe(201);
  connectorId = Number((await res.json()).data.id);
});

const jsonSchema = { type: "object", properties: { email: { type: "string" } } };

test.afterAll(async () => {
  await ws?.dispose();
});

test("POST /catalogs builds one stream and returns the bare catalog with an integer id", async () => {
  const res = await ws.admin.post("/api/v1/catalogs", { connector_id: connectorId, catalog: { json_schema: jsonSchema } });
  expect(res.status(), await res.text()).toBe(200);
  const body = await res.json();
  expect(Object.keys(body).sort()).toEqual(["catalog", "connector_id", "created_at", "id", "updated_at", "workspace_id"]);
  expect(Number.isInteger(body.id)).toBe(true);
  expect(body.connector_id).toBe(connectorId);
  expect(body.workspace_id).toBe(ws.workspaceId);
  expect(body.created_at).toMatch(ISO);
  expect(body.updated_at).toMatch(ISO);
  // Plus the reference protocol's stream members (its console offers supported_sync_modes).
  expect(body.catalog.streams).toEqual([
    {
      name: connectorName,
      url: "unknown",
      json_schema: jsonSchema,
      batch_support: false,
      batch_size: 0,
      request_method: "POST",
      supported_sync_modes: ["full_refresh", "incremental"],
      source_defined_cursor: false,
    },
  ]);
  expect(body.catalog).toMatchObject({ request_rate_limit: expect.any(Number), request_rate_limit_unit: expect.any(String), request_rate_concurrency: expect.any(Number) });
});

test("PUT /catalogs/{id} replaces the catalog and returns the resource with catalog_hash", async () => {
  const created = await (await ws.admin.post("/api/v1/catalogs", { connector_id: connectorId, catalog: { json_schema: jsonSchema } })).json();
  const full = {
    streams: [
      { name: "contacts", url: "/contacts", json_schema: jsonSchema, batch_support: true, batch_size: 100, request_method: "PUT" },
      { name: "deals", json_schema: {} },
    ],
    request_rate_limit: 600,
    request_rate_limit_unit: "hour",
    request_rate_concurrency: 4,
  };
  const res = await ws.admin.put(`/api/v1/catalogs/${created.id}`, { connector_id: connectorId, catalog: full });
  expect(res.status(), await res.text()).toBe(200);
  const { data, ...rest } = await res.json();
  expect(rest).toEqual({});
  expect(data.id).toBe(String(created.id));
  expect(data.type).toBe("catalogs");
  expect(Object.keys(data.attributes).sort()).toEqual(["catalog", "catalog_hash", "connector_id", "workspace_id"]);
  expect(data.attributes.connector_id).toBe(connectorId);
  expect(data.attributes.workspace_id).toBe(ws.workspaceId);
  expect(data.attributes.catalog).toMatchObject({ request_rate_limit: 600, request_rate_limit_unit: "hour", request_rate_concurrency: 4 });
  expect(data.attributes.catalog.streams[1]).toEqual({
    name: "deals",
    url: "unknown",
    json_schema: {},
    batch_support: false,
    batch_size: 0,
    request_method: "POST",
    supported_sync_modes: ["full_refresh", "incremental"],
    source_defined_cursor: false,
  });
  const hash = data.attributes.catalog_hash;
  expect(hash).toMatch(/^[0-9a-f]{64}$/);

  const same = await (await ws.admin.put(`/api/v1/catalogs/${created.id}`, { connector_id: connectorId, catalog: full })).json();
  expect(same.data.attributes.catalog_hash).toBe(hash);
  const changed = await (await ws.admin.put(`/api/v1/catalogs/${created.id}`, { catalog: { json_schema: { type: "object" } } })).json();
  expect(changed.data.attributes.catalog_hash).not.toBe(hash);
  // Rate settings not sent keep the stored ones.
  expect(changed.data.attributes.catalog.request_rate_limit).toBe(600);
});

test("catalog bodies are validated (422) and scoped (404)", async ({ request }) => {
  const noCatalog = await expectError(await ws.admin.post("/api/v1/catalogs", { connector_id: connectorId }), 422, "validation_failed");
  expect(fieldErrors(noCatalog)).toEqual([expect.objectContaining({ path: "catalog" })]);
  await expectError(await ws.admin.post("/api/v1/catalogs", { connector_id: "x", catalog: { json_schema: {} } }), 422, "validation_failed");
  await expectError(await ws.admin.post("/api/v1/catalogs", { connector_id: connectorId, catalog: {} }), 422, "validation_failed");
  const unit = await expectError(
    await ws.admin.post("/api/v1/catalogs", { connector_id: connectorId, catalog: { streams: [{ name: "a" }], request_rate_limit_unit: "week" } }),
    422,
    "validation_failed",
  );
  expect(unit.message).toContain("second, minute, hour, day");
  const method = await expectError(
    await ws.admin.post("/api/v1/catalogs", { connector_id: connectorId, catalog: { streams: [{ name: "a", request_method: "FETCH" }] } }),
    422,
    "validation_failed",
  );
  expect(fieldErrors(method)).toEqual([expect.objectContaining({ path: "catalog.streams.0.request_method" })]);

  const missing = await expectError(await ws.admin.post("/api/v1/catalogs", { connector_id: 99999999, catalog: { json_schema: {} } }), 404, "not_found");
  expect(missing.message).toContain("Connector 99999999");
  await expectError(await ws.admin.put("/api/v1/catalogs/99999999", { catalog: { json_schema: {} } }), 404, "not_found");
  const created = await (await ws.admin.post("/api/v1/catalogs", { connector_id: connectorId, catalog: { json_schema: {} } })).json();
  await expectError(await ws.admin.put(`/api/v1/catalogs/${created.id}`, { connector_id: connectorId + 1000, catalog: { json_schema: {} } }), 422, "validation_failed");

  const other = await dataWorkspace("catalogs-other", request);
  await expectError(await other.admin.post("/api/v1/catalogs", { connector_id: connectorId, catalog: { json_schema: {} } }), 404, "not_found");
  await expectError(await other.admin.put(`/api/v1/catalogs/${created.id}`, { catalog: { json_schema: {} } }), 404, "not_found");
});

test("catalog writes need connector.create/update; no token is 401", async ({ request }) => {
  await expectError(await ws.viewer.post("/api/v1/catalogs", { connector_id: connectorId, catalog: { json_schema: {} } }), 403, "forbidden");
  await expectError(await ws.viewer.put("/api/v1/catalogs/1", { catalog: { json_schema: {} } }), 403, "forbidden");
  await expectError(await request.post("/api/v1/catalogs", { data: { connector_id: connectorId, catalog: { json_schema: {} } } }), 401, "unauthorized");
});

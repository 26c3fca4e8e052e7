// Issue 18, items 3-7: where our answers differed from the reference's published description or its
// server, over real HTTP. Our API contract keeps the last word where it speaks (docs/coming-from-multiwoven.md).
import { expect, test } from "@playwright/test";
import { expectError, fieldErrors } from "../support/api";
import { dataWorkspace, ensureTestDatabase, pgConfiguration, sql, unique, type DataWorkspace } from "../support/data";

type Json = Record<string, unknown>;
type Resource = { id: string; type: string; attributes: Json };

let ws: DataWorkspace;
let sourceId: number;
let destinationId: number;
let modelId: number;
const table = unique("e2e_gaps");

async function post(path: string, data: unknown, status: number): Promise<Json> {
  const res = await ws.admin.post(path, data);
  expect(res.status(), await res.text()).toBe(status);
  return res.json();
}

const connector = (type: string, connectorName = "Postgresql", configuration: Json = pgConfiguration()) => ({
  connector: { name: unique(type), connector_type: type, connector_name: connectorName, configuration },
});

const model = (overrides: Json = {}) => ({
  model: { name: unique("m"), query: "SELECT * FROM users", query_type: "raw_sql", primary_key: "id", connector_id: sourceId, ...overrides },
});

const syncBody = (overrides: Json = {}) => ({
  sync: {
    source_id: sourceId,
    destination_id: destinationId,
    model_id: modelId,
    schedule_type: "manual",
    sync_mode: "full_refresh",
    stream_name: "contacts",
    configuration: [{ from: "email", to: "email", mapping_type: "standard" }],
    ...overrides,
  },
});

async function createSync(overrides: Json = {}): Promise<Resource> {
  const res = await ws.admin.post("/api/v1/syncs", syncBody(overrides));
  expect(res.status(), await res.text()).toBe(200);
  return res.json();
}

test.beforeAll(async () => {
  await ensureTestDatabase();
  await sql(`CREATE TABLE ${table} (id integer PRIMARY KEY, email text)`);
  ws = await dataWorkspace("ref-gaps");
  sourceId = Number(((await post("/api/v1/connectors", connector("source"), 201)).data as Resource).id);
  destinationId = Number(((await post("/api/v1/connectors", connector("destination"), 201)).data as Resource).id);
  await post("/api/v1/catalogs", { connector_id: destinationId, catalog: { streams: [{ name: "contacts" }] } }, 200);
  modelId = Number(((await post("/api/v1/models", model(), 201)).data as Resource).id);
});

test.afterAll(async () => {
  await ws?.dispose();
  await sql(`DROP TABLE IF EXISTS ${table}`);
});

test("18.3 a failed connection check answers result: failure, the reference's enum", async () => {
  const refused = await post(
    "/api/v1/connector_definitions/check_connection",
    { name: "Postgresql", type: "source", connection_spec: pgConfiguration({ port: 1 }) },
    200,
  );
  expect(refused).toMatchObject({ result: "failure", connection_status: { status: "failed" } });
  // A configuration that breaks the schema fails the same way.
  const invalid = await post("/api/v1/connector_definitions/check_connection", { name: "Postgresql", connection_spec: { host: 5 } }, 200);
  expect(invalid.result).toBe("failure");
  // A saved connector's check, tried with other (unsaved) settings.
  const saved = await post(`/api/v1/connectors/${sourceId}/check`, { configuration: pgConfiguration({ port: 1 }) }, 200);
  expect(saved).toMatchObject({ result: "failure", connection_status: { status: "failed" } });
  expect((await post(`/api/v1/connectors/${sourceId}/check`, {}, 200)).result).toBe("success");
});

test("18.4 discovered streams carry action; catalog create echoes the request's json_schema", async () => {
  const tables = await ws.admin.get(`/api/v1/connectors/${sourceId}/discover?refresh=true`);
  expect(tables.status(), await tables.text()).toBe(200);
  const tableStreams = (await tables.json()).data.attributes.catalog.streams as Json[];
  expect(tableStreams.length).toBeGreaterThan(0);
  for (const s of tableStreams) expect(s.action).toBe("fetch");

  const http = await post("/api/v1/connectors", connector("destination", "Http", { destination_url: "http://127.0.0.1:1/hook" }), 201);
  const api = await ws.admin.get(`/api/v1/connectors/${(http.data as Resource).id}/discover?refresh=true`);
  expect(api.status(), await api.text()).toBe(200);
  expect(((await api.json()).data.attributes.catalog.streams as Json[]).map((s) => s.action)).toEqual(["create"]);

  const schema = { type: "object", properties: { email: { type: "string" } } };
  const created = await post("/api/v1/catalogs", { connector_id: Number((http.data as Resource).id), catalog: { json_schema: schema } }, 200);
  const catalog = created.catalog as { json_schema: Json; streams: Json[] };
  expect(catalog.json_schema).toEqual(schema);
  expect(catalog.streams).toEqual([expect.objectContaining({ json_schema: schema, url: "unknown" })]);
  // A body with streams instead of json_schema has nothing to echo.
  const streams = await post("/api/v1/catalogs", { connector_id: destinationId, catalog: { streams: [{ name: "contacts" }] } }, 200);
  expect(streams.catalog).not.toHaveProperty("json_schema");
});

test("18.5 a model may have no primary key; a sync on it is refused until it has one", async () => {
  const keyless = (await post("/api/v1/models", model({ primary_key: undefined }), 201)).data as Resource;
  expect(keyless.attributes.primary_key).toBeNull();
  // The reference console sends "" for "none".
  const blank = (await post("/api/v1/models", model({ primary_key: "" }), 201)).data as Resource;
  expect(blank.attributes.primary_key).toBeNull();

  const refused = await expectError(await ws.admin.post("/api/v1/syncs", syncBody({ model_id: Number(keyless.id) })), 422, "validation_failed");
  expect(fieldErrors(refused)).toEqual([{ path: "sync.model_id", message: expect.stringMatching(/has no primary_key, and a sync tracks changes by it/) }]);

  const keyed = await ws.admin.put(`/api/v1/models/${keyless.id}`, { model: { primary_key: "id" } });
  expect(keyed.status(), await keyed.text()).toBe(200);
  await createSync({ model_id: Number(keyless.id) });
  // While a sync uses it, the key stays.
  const removed = await expectError(await ws.admin.put(`/api/v1/models/${keyless.id}`, { model: { primary_key: null } }), 422, "validation_failed");
  expect(fieldErrors(removed)).toEqual([{ path: "model.primary_key", message: expect.stringMatching(/^cannot be removed while this model has syncs \(sync \d+/) }]);
});

test("18.6 the schedule type decides: values for fields it does not use are accepted and cleared, on create and update", async () => {
  // The reference console's create after the user picked a cron expression: the typed interval stays in the body.
  const cronWithInterval = { schedule_type: "cron_expression", cron_expression: "0 * * * *", sync_interval: 15, sync_interval_unit: "minutes" };
  const created = await createSync(cronWithInterval);
  expect(created.attributes).toMatchObject({ schedule_type: "cron_expression", cron_expression: "0 * * * *", sync_interval: null, sync_interval_unit: null });

  // The reference SDK sends sync_interval on every sync, a manual one included.
  const manual = await createSync({ schedule_type: "manual", sync_interval: 60, sync_interval_unit: "minutes", cron_expression: "*/5 * * * *" });
  expect(manual.attributes).toMatchObject({ schedule_type: "manual", sync_interval: null, sync_interval_unit: null, cron_expression: null, next_run_at: null });

  const sync = await createSync({ schedule_type: "interval", sync_interval: 5, sync_interval_unit: "minutes", cron_expression: "0 * * * *" });
  expect(sync.attributes).toMatchObject({ sync_interval: 5, sync_interval_unit: "minutes", cron_expression: null });
  // The reference console's edit: every schedule field, a new interval (30) beside a cron expression it runs on.
  const switched = await ws.admin.put(`/api/v1/syncs/${sync.id}`, { sync: { ...cronWithInterval, sync_interval: 30 } });
  expect(switched.status(), await switched.text()).toBe(200);
  expect((await switched.json()).data.attributes).toMatchObject({ schedule_type: "cron_expression", cron_expression: "0 * * * *", sync_interval: null, sync_interval_unit: null });
  const shown = (await (await ws.viewer.get(`/api/v1/syncs/${sync.id}`)).json()) as Resource;
  expect(shown.attributes).toMatchObject({ cron_expression: "0 * * * *", sync_interval: null });

  // A 422 only for a field the type needs that is missing or wrong.
  const noCron = await expectError(await ws.admin.post("/api/v1/syncs", syncBody({ schedule_type: "cron_expression", sync_interval: 15, sync_interval_unit: "minutes" })), 422, "validation_failed");
  expect(fieldErrors(noCron)).toEqual([{ path: "sync.cron_expression", message: expect.stringMatching(/^is required when schedule_type is cron_expression/) }]);
  const badInterval = await expectError(
    await ws.admin.put(`/api/v1/syncs/${sync.id}`, { sync: { schedule_type: "interval", sync_interval: 0, sync_interval_unit: "minutes", cron_expression: "0 * * * *" } }),
    422,
    "validation_failed",
  );
  expect(fieldErrors(badInterval)).toEqual([{ path: "sync.sync_interval", message: expect.stringMatching(/^must be greater than 0/) }]);
});

test("18.7 unset string and integer fields are null, present in every answer", async () => {
  const manual = await createSync({ sync_interval: 0, sync_interval_unit: "minutes", cron_expression: "", cursor_field: "" });
  const shown = (await (await ws.viewer.get(`/api/v1/syncs/${manual.id}`)).json()) as Resource;
  const listed = ((await (await ws.viewer.get("/api/v1/syncs?per_page=100")).json()).data as Resource[]).find((s) => s.id === manual.id);
  for (const a of [manual.attributes, shown.attributes, listed!.attributes]) {
    for (const key of ["cron_expression", "cursor_field", "sync_interval", "sync_interval_unit"]) {
      expect(a, key).toHaveProperty(key, null);
    }
  }
});

// The one naming rule over real HTTP: no two sources, two destinations, two models or two syncs of a
// workspace share a name (ignoring case); a clash is a 409 `conflict` pointing at the name field,
// on create and on rename, also when two requests race. A sync may have no name.
import { expect, test } from "@playwright/test";
import { expectError, fieldErrors } from "../support/api";
import { dataWorkspace, pgConfiguration, unique, type DataWorkspace } from "../support/data";

let ws: DataWorkspace;
let sourceId: number;
let destinationId: number;
let modelId: number;

async function post(path: string, data: unknown, status = 201) {
  const res = await ws.admin.post(path, data);
  expect(res.status(), await res.text()).toBe(status);
  return res.json();
}

const connectorBody = (type: "source" | "destination", name: string) => ({
  connector: { name, connector_type: type, connector_name: "Postgresql", configuration: pgConfiguration() },
});
const modelBody = (name: string) => ({
  model: { name, query: "SELECT * FROM users", query_type: "raw_sql", primary_key: "id", connector_id: sourceId },
});
const syncBody = (name: string | null) => ({
  sync: {
    name,
    source_id: sourceId,
    destination_id: destinationId,
    model_id: modelId,
    schedule_type: "manual",
    sync_mode: "full_refresh",
    stream_name: "contacts",
    configuration: [{ from: "email", to: "email", mapping_type: "standard" }],
  },
});

/** A 409 conflict whose one item points at `path` and says the name is taken. */
async function expectNameTaken(res: Parameters<typeof expectError>[0], path: string, name: string) {
  const body = await expectError(res, 409, "conflict");
  expect(body.message).toContain(`named "${name}" already exists in this workspace`);
  expect(fieldErrors(body)).toEqual([{ path, message: expect.stringContaining("is taken") }]);
}

test.beforeAll(async () => {
  ws = await dataWorkspace("names");
  sourceId = Number((await post("/api/v1/connectors", connectorBody("source", unique("names-source")))).data.id);
  destinationId = Number((await post("/api/v1/connectors", connectorBody("destination", unique("names-destination")))).data.id);
  await post("/api/v1/catalogs", { connector_id: destinationId, catalog: { streams: [{ name: "contacts" }] } }, 200);
  modelId = Number((await post("/api/v1/models", modelBody(unique("names-model")))).data.id);
});

test.afterAll(async () => {
  await ws?.dispose();
});

test("models: a name taken in any case is a 409 on create and on rename; keeping one's own name is fine", async () => {
  const name = unique("Orders");
  const first = (await post("/api/v1/models", modelBody(name))).data;
  await expectNameTaken(await ws.admin.post("/api/v1/models", modelBody(name.toLowerCase())), "model.name", name.toLowerCase());
  const other = (await post("/api/v1/models", modelBody(unique("other")))).data;
  await expectNameTaken(await ws.admin.put(`/api/v1/models/${other.id}`, { model: { name: name.toUpperCase() } }), "model.name", name.toUpperCase());
  const same = await ws.admin.put(`/api/v1/models/${first.id}`, { model: { name, description: "still mine" } });
  expect(same.status(), await same.text()).toBe(200);
  // Only its own workspace counts: another workspace may use the name.
  const elsewhere = await dataWorkspace("names-elsewhere");
  try {
    const source = await elsewhere.admin.post("/api/v1/connectors", connectorBody("source", unique("s")));
    const model = await elsewhere.admin.post("/api/v1/models", { model: { ...modelBody(name).model, connector_id: Number((await source.json()).data.id) } });
    expect(model.status(), await model.text()).toBe(201);
  } finally {
    await elsewhere.dispose();
  }
});

test("models: two creates of one name at once make one model and one 409", async () => {
  const name = unique("race");
  const answers = await Promise.all([ws.admin.post("/api/v1/models", modelBody(name)), ws.admin.post("/api/v1/models", modelBody(name))]);
  expect(answers.map((r) => r.status()).sort()).toEqual([201, 409]);
});

test("syncs: a taken name is a 409 on create and on rename; syncs without a name never clash; a deleted sync frees its name", async () => {
  const name = unique("Nightly");
  const first = await post("/api/v1/syncs", syncBody(name), 200);
  await expectNameTaken(await ws.admin.post("/api/v1/syncs", syncBody(name.toUpperCase())), "sync.name", name.toUpperCase());
  const unnamed = [await post("/api/v1/syncs", syncBody(null), 200), await post("/api/v1/syncs", syncBody(null), 200)];
  await expectNameTaken(await ws.admin.put(`/api/v1/syncs/${unnamed[0].id}`, { sync: { name } }), "sync.name", name);
  const del = await ws.admin.delete(`/api/v1/syncs/${first.id}`);
  expect(del.status(), await del.text()).toBe(204);
  const renamed = await ws.admin.put(`/api/v1/syncs/${unnamed[0].id}`, { sync: { name } });
  expect(renamed.status(), await renamed.text()).toBe(200);
  for (const s of unnamed) await ws.admin.delete(`/api/v1/syncs/${s.id}`);
});

test("connectors: the same rule, per kind: a source may share a destination's name, not another source's", async () => {
  const name = unique("Warehouse");
  await post("/api/v1/connectors", connectorBody("source", name));
  await expectNameTaken(await ws.admin.post("/api/v1/connectors", connectorBody("source", name.toLowerCase())), "connector.name", name.toLowerCase());
  await post("/api/v1/connectors", connectorBody("destination", name));
});

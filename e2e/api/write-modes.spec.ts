// Write modes over real HTTP (docs/write-modes.md): each destination definition names its modes, a
// sync takes write_mode on create and update (default upsert, or the destination's only mode), a mode
// the destination does not support is a 422 naming the supported ones, a bad value a 422 with a
// sentence, and a Viewer cannot change it.
import { expect, test } from "@playwright/test";
import { fieldErrors } from "../support/api";
import { dataWorkspace, pgConfiguration, unique, type DataWorkspace } from "../support/data";

let ws: DataWorkspace;
let sourceId: number;
let postgresId: number;
let slackId: number;
let modelId: number;

async function post(path: string, data: unknown, status = 201) {
  const res = await ws.admin.post(path, data);
  expect(res.status(), await res.text()).toBe(status);
  return res.json();
}

const connector = (type: string, connector_name: string, configuration: Record<string, unknown>) => ({
  connector: { name: unique(type), connector_type: type, connector_name, configuration },
});

test.beforeAll(async () => {
  ws = await dataWorkspace("write-modes");
  sourceId = Number((await post("/api/v1/connectors", connector("source", "Postgresql", pgConfiguration()))).data.id);
  postgresId = Number((await post("/api/v1/connectors", connector("destination", "Postgresql", pgConfiguration()))).data.id);
  slackId = Number(
    (await post("/api/v1/connectors", connector("destination", "Slack", { auth_type: "webhook", webhook_url: "https://hooks.slack.com/services/T0/B0/x" }))).data.id,
  );
  for (const id of [postgresId, slackId]) await post("/api/v1/catalogs", { connector_id: id, catalog: { streams: [{ name: "contacts" }] } }, 200);
  modelId = Number(
    (await post("/api/v1/models", { model: { name: unique("m"), query: "SELECT * FROM users", query_type: "raw_sql", primary_key: "id", connector_id: sourceId } })).data.id,
  );
});

test.afterAll(() => ws?.dispose());

const syncBody = (overrides: Record<string, unknown> = {}) => ({
  sync: {
    source_id: sourceId,
    destination_id: postgresId,
    model_id: modelId,
    schedule_type: "manual",
    sync_mode: "incremental",
    stream_name: "contacts",
    ...overrides,
  },
});

test("definitions name the write modes of each destination", async () => {
  const res = await ws.admin.get("/api/v1/connector_definitions?type=destination");
  expect(res.status()).toBe(200);
  const modes = Object.fromEntries(((await res.json()) as { name: string; supported_write_modes: string[] }[]).map((d) => [d.name, d.supported_write_modes]));
  expect(modes).toMatchObject({
    Postgresql: ["upsert", "update", "insert", "mirror"],
    MariaDB: ["upsert", "update", "insert", "mirror"],
    Http: ["upsert", "update", "insert", "mirror"],
    Slack: ["insert"],
  });
  const one = await (await ws.admin.get("/api/v1/connector_definitions/Slack?type=destination")).json();
  expect(one.supported_write_modes).toEqual(["insert"]);
});

test("write_mode defaults to upsert, and to insert on Slack, which supports nothing else", async () => {
  const created = await post("/api/v1/syncs", syncBody(), 200);
  expect(created.attributes.write_mode).toBe("upsert");
  const shown = await (await ws.admin.get(`/api/v1/syncs/${created.id}`)).json();
  expect(shown.attributes.write_mode).toBe("upsert");

  const onSlack = await post("/api/v1/syncs", syncBody({ destination_id: slackId }), 200);
  expect(onSlack.attributes.write_mode).toBe("insert");

  const refused = await ws.admin.post("/api/v1/syncs", syncBody({ destination_id: slackId, write_mode: "upsert" }));
  expect(refused.status()).toBe(422);
  expect(fieldErrors(await refused.json())).toContainEqual({
    path: "sync.write_mode",
    message: 'Slack destinations do not support write mode "upsert"; supported: insert',
  });
});

test("write_mode is set on create, changed on update, and checked when the destination changes", async () => {
  const created = await post("/api/v1/syncs", syncBody({ write_mode: "mirror" }), 200);
  expect(created.attributes.write_mode).toBe("mirror");
  const updated = await ws.admin.put(`/api/v1/syncs/${created.id}`, { sync: { write_mode: "update" } });
  expect(updated.status(), await updated.text()).toBe(200);
  expect((await updated.json()).data.attributes.write_mode).toBe("update");

  // The stored mode (update) does not fit Slack: moving the sync there without a mode it supports is refused.
  const moved = await ws.admin.put(`/api/v1/syncs/${created.id}`, { sync: { destination_id: slackId } });
  expect(moved.status()).toBe(422);
  expect(fieldErrors(await moved.json())).toContainEqual({
    path: "sync.write_mode",
    message: 'Slack destinations do not support write mode "update" (the sync\'s write mode is update); supported: insert',
  });
  const movedWithMode = await ws.admin.put(`/api/v1/syncs/${created.id}`, { sync: { destination_id: slackId, write_mode: "insert" } });
  expect(movedWithMode.status(), await movedWithMode.text()).toBe(200);
  expect((await movedWithMode.json()).data.attributes).toMatchObject({ destination_id: slackId, write_mode: "insert" });

  // Saving other fields (as the reference console does, with every field) leaves the mode alone.
  const other = await ws.admin.put(`/api/v1/syncs/${created.id}`, { sync: { destination_id: slackId, name: unique("renamed") } });
  expect(other.status(), await other.text()).toBe(200);
  expect((await other.json()).data.attributes.write_mode).toBe("insert");
});

test("a bad write_mode is a 422 that lists the modes", async () => {
  for (const bad of ["merge", "UPSERT", 1, null]) {
    const res = await ws.admin.post("/api/v1/syncs", syncBody({ write_mode: bad }));
    expect(res.status(), `write_mode ${JSON.stringify(bad)}`).toBe(422);
    expect(fieldErrors(await res.json())).toContainEqual({
      path: "sync.write_mode",
      message: expect.stringMatching(/^must be one of: upsert, update, insert, mirror\b/),
    });
  }
});

test("a Viewer can read the write mode but not change it", async () => {
  const created = await post("/api/v1/syncs", syncBody({ write_mode: "insert" }), 200);
  const read = await ws.viewer.get(`/api/v1/syncs/${created.id}`);
  expect(read.status()).toBe(200);
  expect((await read.json()).attributes.write_mode).toBe("insert");
  const change = await ws.viewer.put(`/api/v1/syncs/${created.id}`, { sync: { write_mode: "mirror" } });
  expect(change.status()).toBe(403);
  const create = await ws.viewer.post("/api/v1/syncs", syncBody({ write_mode: "mirror" }));
  expect(create.status()).toBe(403);
  expect((await (await ws.admin.get(`/api/v1/syncs/${created.id}`)).json()).attributes.write_mode).toBe("insert");
});

test("another workspace's destination is not found, whatever the mode", async ({ request }) => {
  const other = await dataWorkspace("write-modes-other", request);
  const res = await other.admin.post("/api/v1/syncs", syncBody({ write_mode: "update" }));
  expect(res.status()).toBe(422);
  const errors = fieldErrors(await res.json());
  expect(errors).toContainEqual(expect.objectContaining({ path: "sync.destination_id", message: `connector ${postgresId} was not found in this workspace` }));
  // Nothing about the other workspace's connector (its kind, its modes) leaks through the mode check.
  expect(errors.map((e) => e.path)).not.toContain("sync.write_mode");
});

// The orchestration surface over HTTP: trigger answers the run id, GET ?wait= long-polls the run
// until it settles, bad waits are 400, a Viewer cannot trigger, another workspace's run is a 404.
import { expect, test } from "@playwright/test";
import { expectError } from "../support/api";
import { dataWorkspace, ensureTestDatabase, pgConfiguration, sql, unique, type DataWorkspace } from "../support/data";

let ws: DataWorkspace;
let other: DataWorkspace;
const src = unique("e2e_orch_src");
const dst = unique("e2e_orch_dst");
let syncId: string;

async function post(api: DataWorkspace["admin"], path: string, data: unknown, status = 201) {
  const res = await api.post(path, data);
  expect(res.status(), await res.text()).toBe(status);
  return res.json();
}

test.beforeAll(async () => {
  await ensureTestDatabase();
  await sql(`CREATE TABLE ${src} (id integer PRIMARY KEY, email text)`);
  await sql(`INSERT INTO ${src} SELECT g, 'u' || g || '@example.com' FROM generate_series(1, 20) g`);
  await sql(`CREATE TABLE ${dst} (id integer PRIMARY KEY, email text NOT NULL)`);
  ws = await dataWorkspace("orch");
  other = await dataWorkspace("orch-other");
  const connector = (type: string) => ({
    connector: { name: unique(type), connector_type: type, connector_name: "Postgresql", configuration: pgConfiguration() },
  });
  const sourceId = Number((await post(ws.admin, "/api/v1/connectors", connector("source"))).data.id);
  const destinationId = Number((await post(ws.admin, "/api/v1/connectors", connector("destination"))).data.id);
  const discovered = await ws.admin.get(`/api/v1/connectors/${destinationId}/discover?refresh=true`);
  expect(discovered.status(), await discovered.text()).toBe(200);
  const model = await post(ws.admin, "/api/v1/models", {
    model: { name: unique("m"), query: `SELECT id, email FROM ${src}`, query_type: "raw_sql", primary_key: "id", connector_id: sourceId },
  });
  const sync = await post(
    ws.admin,
    "/api/v1/syncs",
    {
      sync: {
        name: unique("sync"),
        source_id: sourceId,
        destination_id: destinationId,
        model_id: Number(model.data.id),
        schedule_type: "manual",
        sync_mode: "full_refresh",
        stream_name: dst,
        configuration: [
          { from: "id", to: "id", mapping_type: "standard" },
          { from: "email", to: "email", mapping_type: "standard" },
        ],
      },
    },
    200,
  );
  syncId = String(sync.id);
});
test.afterAll(async () => {
  await ws?.dispose();
  await other?.dispose();
  await sql(`DROP TABLE IF EXISTS ${src}`);
  await sql(`DROP TABLE IF EXISTS ${dst}`);
});

test("trigger answers the run id, and GET ?wait= answers once the run has ended", async () => {
  const triggered = await post(ws.admin, "/api/v1/schedule_syncs", { schedule_sync: { sync_id: Number(syncId) } }, 200);
  const runId = triggered.data.id as string;
  expect(runId).toMatch(/^\d+$/);
  // One request: a long-poll that returned before the run ended would show a non-final status here.
  const res = await ws.viewer.get(`/api/v1/syncs/${syncId}/sync_runs/${runId}?wait=60`);
  expect(res.status(), await res.text()).toBe(200);
  expect((await res.json()).data.attributes).toMatchObject({ status: "success", successful_rows: 20 });
});

test("wait must be 0 to 60 whole seconds", async () => {
  const triggered = await post(ws.admin, "/api/v1/schedule_syncs", { schedule_sync: { sync_id: Number(syncId) } }, 200);
  const runId = triggered.data.id as string;
  for (const wait of ["61", "-1", "abc", "1.5", ""])
    await expectError(await ws.viewer.get(`/api/v1/syncs/${syncId}/sync_runs/${runId}?wait=${wait}`), 400, "bad_request");
  const settled = await ws.viewer.get(`/api/v1/syncs/${syncId}/sync_runs/${runId}?wait=60`);
  expect(settled.status()).toBe(200);
});

test("a Viewer cannot trigger; another workspace can neither trigger nor wait on the run", async () => {
  await expectError(await ws.viewer.post("/api/v1/schedule_syncs", { schedule_sync: { sync_id: Number(syncId) } }), 403, "forbidden");
  await expectError(await other.admin.post("/api/v1/schedule_syncs", { schedule_sync: { sync_id: Number(syncId) } }), 404, "not_found");
  const runs = (await (await ws.viewer.get(`/api/v1/syncs/${syncId}/sync_runs`)).json()).data as { id: string }[];
  expect(runs.length).toBeGreaterThan(0);
  await expectError(await other.admin.get(`/api/v1/syncs/${syncId}/sync_runs/${runs[0].id}?wait=60`), 404, "not_found");
});

test("cancel by run id: an ended run is a 409, a Viewer is refused, another workspace gets 404", async () => {
  const runs = (await (await ws.viewer.get(`/api/v1/syncs/${syncId}/sync_runs`)).json()).data as { id: string }[];
  const ended = runs[runs.length - 1].id;
  await expectError(await ws.viewer.post(`/api/v1/syncs/${syncId}/sync_runs/${ended}/cancel`), 403, "forbidden");
  await expectError(await other.admin.post(`/api/v1/syncs/${syncId}/sync_runs/${ended}/cancel`), 404, "not_found");
  await expectError(await ws.admin.post(`/api/v1/syncs/${syncId}/sync_runs/${ended}/cancel`), 409, "conflict");
});

test("an Idempotency-Key makes a retried trigger answer the same run, even while it runs; a malformed key is a 400", async () => {
  const trigger = (key: string) => ws.admin.post("/api/v1/schedule_syncs", { schedule_sync: { sync_id: Number(syncId) } }, { "Idempotency-Key": key });
  const key = `airflow-${unique("try")}`;
  const first = await trigger(key);
  expect(first.status(), await first.text()).toBe(200);
  const runId = (await first.json()).data.id as string;
  // Without the key this would be a 424 (the sync is running); with it, the same run.
  const again = await trigger(key);
  expect(again.status(), await again.text()).toBe(200);
  expect((await again.json()).data.id).toBe(runId);
  await expectError(await trigger("has a space"), 400, "bad_request");
  const settled = await ws.viewer.get(`/api/v1/syncs/${syncId}/sync_runs/${runId}?wait=60`);
  expect((await settled.json()).data.attributes.status).toBe("success");
  // Another workspace with the same key: its own answer (404 for a sync it cannot see), nothing of ours.
  await expectError(await other.admin.post("/api/v1/schedule_syncs", { schedule_sync: { sync_id: Number(syncId) } }, { "Idempotency-Key": key }), 404, "not_found");
});

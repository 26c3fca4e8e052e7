// The Qdrant source over real HTTP, against tests/emulators/qdrant.ts (started here): created from the
// reference's settings (host, api_key, collection_name), checked, discovered, previewed, a model
// listing every point and a sync into PostgreSQL, whose unchanged re-run sends nothing; the key
// never comes back.
import { expect, test } from "@playwright/test";
import { startQdrantEmulator } from "../../tests/emulators/qdrant";
import { trigger, waitForRun } from "../support/run-scenarios";
import { dataWorkspace, MASK, pgConfiguration, sql, sqlRows, unique, type DataWorkspace } from "../support/data";

const KEY = "qdr_e2e_7Hc2mK9pL4vN8xR1tW6yZ3bD5fG0jQ";
let ws: DataWorkspace;
let q: Awaited<ReturnType<typeof startQdrantEmulator>>;

async function created(api: DataWorkspace["admin"], url: string, data: unknown): Promise<number> {
  const res = await api.post(url, data);
  expect(res.status(), await res.text()).toBeLessThan(300);
  const body = await res.json();
  return Number(body.data?.id ?? body.id);
}

test.beforeAll(async () => {
  ws = await dataWorkspace("qdrant");
  q = await startQdrantEmulator({ apiKey: KEY });
  const c = q.addCollection("articles", 4, { title: "keyword" });
  for (let i = 1; i <= 730; i++) c.points.set(String(i), { id: i, vector: [i / 730, 1, 0, 0.5], payload: { title: `Article ${i}` } });
});

test.afterAll(async () => {
  await q?.close();
  await ws?.dispose();
});

test("a Qdrant collection's points sync into PostgreSQL; the unchanged re-run sends nothing", async () => {
  const configuration = { host: q.url, api_key: KEY, collection_name: "articles" };
  const sourceId = await created(ws.admin, "/api/v1/connectors", { connector: { name: unique("qdrant"), connector_type: "source", connector_name: "Qdrant", configuration } });
  const shown = await (await ws.admin.get(`/api/v1/connectors/${sourceId}`)).text();
  expect(shown).not.toContain(KEY);
  expect(shown).toContain(MASK);

  const check = await ws.admin.post(`/api/v1/connectors/${sourceId}/check`, {});
  expect(check.status(), await check.text()).toBe(200);
  expect(JSON.stringify(await check.json())).toContain("holds vectors of 4 dimensions, 730 points");

  const discovered = await ws.admin.get(`/api/v1/connectors/${sourceId}/discover?refresh=true`);
  expect(discovered.status(), await discovered.text()).toBe(200);
  expect(JSON.stringify(await discovered.json())).toContain("articles");

  const preview = await ws.admin.post(`/api/v1/connectors/${sourceId}/query_source`, { query: JSON.stringify({ vector: [1, 1, 0, 0.5], limit: 3 }) });
  const previewText = await preview.text();
  expect(preview.status(), previewText).toBe(200);
  expect(previewText).toContain("Article 730");
  expect(previewText).not.toContain(KEY);

  const table = unique("qdrant_points");
  await sql(`CREATE TABLE ${table} (id text PRIMARY KEY, payload jsonb, vector jsonb)`);
  const destinationId = await created(ws.admin, "/api/v1/connectors", {
    connector: { name: unique("pg"), connector_type: "destination", connector_name: "Postgresql", configuration: pgConfiguration() },
  });
  expect((await ws.admin.get(`/api/v1/connectors/${destinationId}/discover?refresh=true`)).status()).toBe(200);
  const modelId = await created(ws.admin, "/api/v1/models", {
    model: { name: unique("points"), query: "{}", query_type: "raw_sql", primary_key: "id", connector_id: sourceId },
  });
  const syncId = await created(ws.admin, "/api/v1/syncs", {
    sync: { source_id: sourceId, destination_id: destinationId, model_id: modelId, schedule_type: "manual", sync_mode: "incremental", stream_name: table, configuration: { id: "id", payload: "payload", vector: "vector" } },
  });
  const first = await waitForRun(ws.admin, syncId, await trigger(ws.admin, syncId));
  expect(first).toMatchObject({ status: "success", total_rows: 730, successful_rows: 730 });
  expect(await sqlRows(`SELECT count(*)::int AS n, max(payload->>'title') AS last FROM ${table}`)).toEqual([{ n: 730, last: "Article 99" }]);
  expect(await sqlRows(`SELECT vector FROM ${table} WHERE id = '730'`)).toEqual([{ vector: [1, 1, 0, 0.5] }]);

  const same = await waitForRun(ws.admin, syncId, await trigger(ws.admin, syncId));
  expect(same).toMatchObject({ status: "success", total_rows: 0 });
});

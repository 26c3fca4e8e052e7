// The PineconeDB source over real HTTP, against tests/emulators/pinecone.ts (started here; it serves
// the control plane and the index's host): created from the reference's settings (api_key, region,
// index_name, namespace) plus the emulator's control plane URL, checked, discovered, previewed, a
// model listing the namespace's vectors and a sync into PostgreSQL, whose unchanged re-run sends
// nothing; the key never comes back.
import { expect, test } from "@playwright/test";
import { startPineconeEmulator } from "../../tests/emulators/pinecone";
import { trigger, waitForRun } from "../support/run-scenarios";
import { dataWorkspace, MASK, pgConfiguration, sql, sqlRows, unique, type DataWorkspace } from "../support/data";

const KEY = "pcsk_e2e_4xYq2_0123456789abcdefABCDEF0123456789";
let ws: DataWorkspace;
let p: Awaited<ReturnType<typeof startPineconeEmulator>>;

async function created(api: DataWorkspace["admin"], url: string, data: unknown): Promise<number> {
  const res = await api.post(url, data);
  expect(res.status(), await res.text()).toBeLessThan(300);
  const body = await res.json();
  return Number(body.data?.id ?? body.id);
}

test.beforeAll(async () => {
  ws = await dataWorkspace("pinecone");
  p = await startPineconeEmulator({ apiKey: KEY, indexName: "products", dimension: 3 });
  const space = p.space("catalog");
  for (let i = 1; i <= 420; i++) space.set(`sku-${String(i).padStart(4, "0")}`, { id: `sku-${String(i).padStart(4, "0")}`, values: [i / 420, 0.5, 1], metadata: { name: `Product ${i}`, price: i } });
});

test.afterAll(async () => {
  await p?.close();
  await ws?.dispose();
});

test("a Pinecone namespace's vectors sync into PostgreSQL; the unchanged re-run sends nothing", async () => {
  const configuration = { api_key: KEY, region: "us-east-1", index_name: "products", namespace: "catalog", control_plane_url: p.url };
  const sourceId = await created(ws.admin, "/api/v1/connectors", { connector: { name: unique("pinecone"), connector_type: "source", connector_name: "PineconeDB", configuration } });
  const shown = await (await ws.admin.get(`/api/v1/connectors/${sourceId}`)).text();
  expect(shown).not.toContain(KEY);
  expect(shown).toContain(MASK);

  const check = await ws.admin.post(`/api/v1/connectors/${sourceId}/check`, {});
  expect(check.status(), await check.text()).toBe(200);
  expect(JSON.stringify(await check.json())).toContain("namespace catalog holds 420 vectors");

  const discovered = await ws.admin.get(`/api/v1/connectors/${sourceId}/discover?refresh=true`);
  expect(discovered.status(), await discovered.text()).toBe(200);
  expect(JSON.stringify(await discovered.json())).toContain("catalog");

  const preview = await ws.admin.post(`/api/v1/connectors/${sourceId}/query_source`, { query: JSON.stringify({ vector: [1, 0.5, 1], limit: 2, filters: [{ field: "price", operator: "gte", value: 400 }] }) });
  const previewText = await preview.text();
  expect(preview.status(), previewText).toBe(200);
  expect(previewText).toContain("Product 420");
  expect(previewText).not.toContain(KEY);

  const table = unique("pinecone_vectors");
  await sql(`CREATE TABLE ${table} (id text PRIMARY KEY, metadata jsonb, "values" jsonb)`);
  const destinationId = await created(ws.admin, "/api/v1/connectors", {
    connector: { name: unique("pg"), connector_type: "destination", connector_name: "Postgresql", configuration: pgConfiguration() },
  });
  expect((await ws.admin.get(`/api/v1/connectors/${destinationId}/discover?refresh=true`)).status()).toBe(200);
  const modelId = await created(ws.admin, "/api/v1/models", {
    model: { name: unique("vectors"), query: "{}", query_type: "raw_sql", primary_key: "id", connector_id: sourceId },
  });
  const syncId = await created(ws.admin, "/api/v1/syncs", {
    sync: { source_id: sourceId, destination_id: destinationId, model_id: modelId, schedule_type: "manual", sync_mode: "incremental", stream_name: table, configuration: { id: "id", metadata: "metadata", values: "values" } },
  });
  const first = await waitForRun(ws.admin, syncId, await trigger(ws.admin, syncId));
  expect(first).toMatchObject({ status: "success", total_rows: 420, successful_rows: 420 });
  expect(await sqlRows(`SELECT count(*)::int AS n, sum((metadata->>'price')::int)::int AS total FROM ${table}`)).toEqual([{ n: 420, total: 88410 }]);
  expect(await sqlRows(`SELECT "values" FROM ${table} WHERE id = 'sku-0420'`)).toEqual([{ values: [1, 0.5, 1] }]);
  // The ids came page by page (at most 100 a page), each page's vectors fetched.
  expect(p.requests.filter((r) => r.url.startsWith("/vectors/list")).length).toBeGreaterThanOrEqual(5);

  const same = await waitForRun(ws.admin, syncId, await trigger(ws.admin, syncId));
  expect(same).toMatchObject({ status: "success", total_rows: 0 });
});

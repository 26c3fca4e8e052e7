// The Http source over real HTTP, against tests/emulators/http-source.ts (started here): created from
// the reference's settings (offset paging), checked, discovered, previewed, a model and a sync into
// PostgreSQL whose unchanged re-run sends nothing; the header's token never comes back.
import { expect, test } from "@playwright/test";
import { makeOrders, startHttpSourceEmulator } from "../../tests/emulators/http-source";
import { trigger, waitForRun } from "../support/run-scenarios";
import { dataWorkspace, MASK, pgConfiguration, sql, sqlRows, unique, type DataWorkspace } from "../support/data";

const TOKEN = "e2e-http-source-token-5f1c";
let ws: DataWorkspace;
let api: Awaited<ReturnType<typeof startHttpSourceEmulator>>;

async function created(admin: DataWorkspace["admin"], url: string, data: unknown): Promise<number> {
  const res = await admin.post(url, data);
  expect(res.status(), await res.text()).toBeLessThan(300);
  const body = await res.json();
  return Number(body.data?.id ?? body.id);
}

test.beforeAll(async () => {
  ws = await dataWorkspace("http-source");
  api = await startHttpSourceEmulator({ token: TOKEN, orders: makeOrders(1500) });
});

test.afterAll(async () => {
  await api?.close();
  await ws?.dispose();
});

test("an HTTP API syncs into PostgreSQL page by page; the unchanged re-run sends nothing", async () => {
  const configuration = {
    increment_type: "Offset",
    http_method: "GET",
    base_url: api.url,
    path: "/v1/orders",
    headers: { Authorization: `Bearer ${TOKEN}` },
    config: { timeout: "30" },
    parse_response: "$.data[0]",
    offset_param: "offset",
    limit_param: "limit",
    page_size: "200",
  };
  const sourceId = await created(ws.admin, "/api/v1/connectors", { connector: { name: unique("http"), connector_type: "source", connector_name: "Http", configuration } });
  const shown = await (await ws.admin.get(`/api/v1/connectors/${sourceId}`)).text();
  expect(shown).not.toContain(TOKEN);
  expect(shown).toContain(MASK);

  const check = await ws.admin.post(`/api/v1/connectors/${sourceId}/check`, {});
  expect(check.status(), await check.text()).toBe(200);
  expect(JSON.stringify(await check.json())).toContain("the first page holds 200 records");

  const discovered = await ws.admin.get(`/api/v1/connectors/${sourceId}/discover?refresh=true`);
  expect(discovered.status(), await discovered.text()).toBe(200);
  expect(JSON.stringify(await discovered.json())).toContain('"orders"');

  const preview = await ws.admin.post(`/api/v1/connectors/${sourceId}/query_source`, { query: "orders", limit: 5 });
  expect(preview.status(), await preview.text()).toBe(200);
  expect(JSON.stringify(await preview.json())).toContain("customer-1@example.com");

  const table = unique("http_orders");
  await sql(`CREATE TABLE ${table} (id bigint PRIMARY KEY, customer text, amount numeric(12,2), status text)`);
  const destinationId = await created(ws.admin, "/api/v1/connectors", {
    connector: { name: unique("pg"), connector_type: "destination", connector_name: "Postgresql", configuration: pgConfiguration() },
  });
  expect((await ws.admin.get(`/api/v1/connectors/${destinationId}/discover?refresh=true`)).status()).toBe(200);
  const modelId = await created(ws.admin, "/api/v1/models", {
    model: { name: unique("orders"), query: "orders", query_type: "raw_sql", primary_key: "id", connector_id: sourceId },
  });
  const syncId = await created(ws.admin, "/api/v1/syncs", {
    sync: { source_id: sourceId, destination_id: destinationId, model_id: modelId, schedule_type: "manual", sync_mode: "incremental", stream_name: table, configuration: { id: "id", customer: "customer", amount: "amount", status: "status" } },
  });
  const first = await waitForRun(ws.admin, syncId, await trigger(ws.admin, syncId));
  expect(first).toMatchObject({ status: "success", total_rows: 1500, successful_rows: 1500 });
  expect(await sqlRows(`SELECT count(*)::int AS n, sum(amount)::text AS total FROM ${table}`)).toEqual([{ n: 1500, total: "14071875.00" }]);

  const same = await waitForRun(ws.admin, syncId, await trigger(ws.admin, syncId));
  expect(same).toMatchObject({ status: "success", total_rows: 0 });
});

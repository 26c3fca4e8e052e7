// The IntuitQuickBooks source over real HTTP, against tests/emulators/quickbooks.ts (QuickBooks'
// query endpoint and Intuit's token endpoint, started here): created from the reference's settings
// (plus the emulator's URLs), checked, discovered, previewed, a model and a sync into PostgreSQL whose
// unchanged re-run sends nothing, and an incremental sync on MetaData.LastUpdatedTime; no secret
// ever comes back.
import { expect, test } from "@playwright/test";
import { startQuickbooksEmulator } from "../../tests/emulators/quickbooks";
import { trigger, waitForRun } from "../support/run-scenarios";
import { dataWorkspace, MASK, pgConfiguration, sql, sqlRows, unique, type DataWorkspace } from "../support/data";

const CLIENT = { clientId: "e2e-qb-client-id-8e1", clientSecret: "e2e-qb-client-secret-3d9", realmId: "9130357766894856", refreshToken: "e2e-qb-refresh-token-7a2" };
let ws: DataWorkspace;
let qb: Awaited<ReturnType<typeof startQuickbooksEmulator>>;

async function created(admin: DataWorkspace["admin"], url: string, data: unknown): Promise<number> {
  const res = await admin.post(url, data);
  expect(res.status(), await res.text()).toBeLessThan(300);
  const body = await res.json();
  return Number(body.data?.id ?? body.id);
}

test.beforeAll(async () => {
  ws = await dataWorkspace("quickbooks");
  qb = await startQuickbooksEmulator(CLIENT);
  qb.add(
    "Customer",
    Array.from({ length: 1200 }, (_, i) => ({
      DisplayName: `Customer ${i + 1}`,
      Balance: (i % 4) * 2.5,
      PrimaryEmailAddr: { Address: `c${i + 1}@example.com` },
      MetaData: { CreateTime: "2025-01-01T10:00:00-08:00", LastUpdatedTime: "2025-01-01T10:00:00-08:00" },
    })),
  );
  for (const entity of ["Account", "Employee", "Invoice", "TimeActivity"]) qb.define(entity);
});

test.afterAll(async () => {
  await qb?.close();
  await ws?.dispose();
});

test("QuickBooks customers sync into PostgreSQL; the unchanged re-run sends nothing; an update is picked up incrementally", async () => {
  const configuration = {
    environment: "sandbox",
    client_id: CLIENT.clientId,
    client_secret: CLIENT.clientSecret,
    realm_id: CLIENT.realmId,
    refresh_token: CLIENT.refreshToken,
    api_base_url: qb.url,
    token_url: qb.tokenUrl,
  };
  const sourceId = await created(ws.admin, "/api/v1/connectors", { connector: { name: unique("qb"), connector_type: "source", connector_name: "IntuitQuickBooks", configuration } });
  const shown = await (await ws.admin.get(`/api/v1/connectors/${sourceId}`)).text();
  for (const secret of Object.values(CLIENT)) expect(shown).not.toContain(secret);
  expect(shown).toContain(MASK);

  const check = await ws.admin.post(`/api/v1/connectors/${sourceId}/check`, {});
  expect(check.status(), await check.text()).toBe(200);
  expect(JSON.stringify(await check.json())).toContain("Connected to QuickBooks Online (sandbox)");

  const discovered = await ws.admin.get(`/api/v1/connectors/${sourceId}/discover?refresh=true`);
  const catalogText = await discovered.text();
  expect(discovered.status(), catalogText).toBe(200);
  expect(catalogText).toContain("PrimaryEmailAddr.Address");
  expect(catalogText).toContain("TimeActivity");

  const preview = await ws.admin.post(`/api/v1/connectors/${sourceId}/query_source`, { query: "SELECT * FROM Customer", limit: 3 });
  expect(preview.status(), await preview.text()).toBe(200);
  expect(JSON.stringify(await preview.json())).toContain("c1@example.com");

  const table = unique("qb_customers");
  await sql(`CREATE TABLE ${table} (id text PRIMARY KEY, name text, email text, balance numeric(12,2), updated text)`);
  const destinationId = await created(ws.admin, "/api/v1/connectors", {
    connector: { name: unique("pg"), connector_type: "destination", connector_name: "Postgresql", configuration: pgConfiguration() },
  });
  expect((await ws.admin.get(`/api/v1/connectors/${destinationId}/discover?refresh=true`)).status()).toBe(200);
  const modelId = await created(ws.admin, "/api/v1/models", {
    model: { name: unique("customers"), query: "SELECT * FROM Customer", query_type: "raw_sql", primary_key: "Id", connector_id: sourceId },
  });
  const mapping = { Id: "id", DisplayName: "name", "PrimaryEmailAddr.Address": "email", Balance: "balance", "MetaData.LastUpdatedTime": "updated" };
  const syncId = await created(ws.admin, "/api/v1/syncs", {
    sync: { source_id: sourceId, destination_id: destinationId, model_id: modelId, schedule_type: "manual", sync_mode: "incremental", stream_name: table, configuration: mapping },
  });
  const first = await waitForRun(ws.admin, syncId, await trigger(ws.admin, syncId));
  expect(first).toMatchObject({ status: "success", total_rows: 1200, successful_rows: 1200 });
  expect(await sqlRows(`SELECT count(*)::int AS n, sum(balance)::text AS total FROM ${table}`)).toEqual([{ n: 1200, total: "4500.00" }]);

  const same = await waitForRun(ws.admin, syncId, await trigger(ws.admin, syncId));
  expect(same).toMatchObject({ status: "success", total_rows: 0 });

  // Incremental on the cursor: one customer changes; the read asks QuickBooks only for what changed
  // since the last run's cursor, and only the changed customer is sent.
  const incremental = await created(ws.admin, "/api/v1/syncs", {
    sync: { source_id: sourceId, destination_id: destinationId, model_id: modelId, schedule_type: "manual", sync_mode: "incremental", cursor_field: "MetaData.LastUpdatedTime", stream_name: table, configuration: mapping },
  });
  const full = await waitForRun(ws.admin, incremental, await trigger(ws.admin, incremental));
  expect(full).toMatchObject({ status: "success" });
  qb.update("Customer", "7", { DisplayName: "Customer Seven" }, "2025-02-01T09:00:00-08:00");
  const changed = await waitForRun(ws.admin, incremental, await trigger(ws.admin, incremental));
  expect(changed).toMatchObject({ status: "success", total_rows: 1, successful_rows: 1 });
  expect(qb.stats.queries.slice(-1)[0]).toContain("WHERE MetaData.LastUpdatedTime >= '2025-01-01T10:00:00-08:00' ORDERBY MetaData.LastUpdatedTime");
  expect(await sqlRows(`SELECT name FROM ${table} WHERE id = '7'`)).toEqual([{ name: "Customer Seven" }]);
});

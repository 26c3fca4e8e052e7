// The Salesforce Consumer Goods Cloud source over real HTTP, against the Salesforce REST API
// emulator (tests/emulators/salesforce.ts, started here): created from the reference's settings
// (plus the emulator's URL), checked, discovered, previewed, a SOQL model synced into PostgreSQL
// page by page, whose unchanged re-run sends nothing and whose re-run after one change sends that
// one; the password, security token and client secret never come back.
import { expect, test } from "@playwright/test";
import { CONSUMER_GOODS_OBJECTS, startSalesforceEmulator } from "../../tests/emulators/salesforce";
import { trigger, waitForRun } from "../support/run-scenarios";
import { dataWorkspace, MASK, pgConfiguration, sql, sqlRows, unique, type DataWorkspace } from "../support/data";

const USER = { username: "integration@acme-retail.com", password: "Field-Sales-2024!", securityToken: "e2eSecurityToken0123456789" };
const CLIENT = { clientId: "3MVG9e2eConsumerGoodsKey", clientSecret: "e2e-consumer-goods-secret-0123" };

let ws: DataWorkspace;
let sf: Awaited<ReturnType<typeof startSalesforceEmulator>>;

async function created(api: DataWorkspace["admin"], url: string, data: unknown): Promise<number> {
  const res = await api.post(url, data);
  expect(res.status(), await res.text()).toBeLessThan(300);
  const body = await res.json();
  return Number(body.data?.id ?? body.id);
}

test.beforeAll(async () => {
  ws = await dataWorkspace("cgc");
  sf = await startSalesforceEmulator({ ...CLIENT, user: USER, objects: CONSUMER_GOODS_OBJECTS, queryBatchSize: 200 });
  sf.seed("Account", Array.from({ length: 450 }, (_, i) => ({ Name: `Retailer ${i + 1}`, AccountNumber: `R-${i + 1}`, AnnualRevenue: 1000 + i / 4 })));
});

test.afterAll(async () => {
  await sf?.close();
  await ws?.dispose();
});

test("a Consumer Goods Cloud SOQL model syncs into PostgreSQL; the unchanged re-run sends nothing", async () => {
  const configuration = {
    username: USER.username,
    password: USER.password,
    host: "login.salesforce.com",
    security_token: USER.securityToken,
    client_id: CLIENT.clientId,
    client_secret: CLIENT.clientSecret,
    base_url: sf.url,
  };
  const sourceId = await created(ws.admin, "/api/v1/connectors", { connector: { name: unique("cgc"), connector_type: "source", connector_name: "SalesforceConsumerGoodsCloud", configuration } });
  const shown = await (await ws.admin.get(`/api/v1/connectors/${sourceId}`)).text();
  for (const secret of [USER.password, USER.securityToken, CLIENT.clientSecret]) expect(shown).not.toContain(secret);
  expect(shown).toContain(MASK);

  const check = await ws.admin.post(`/api/v1/connectors/${sourceId}/check`, {});
  expect(check.status(), await check.text()).toBe(200);
  expect(JSON.stringify(await check.json())).toContain("Connected to Salesforce Consumer Goods Cloud");

  const discovered = await ws.admin.get(`/api/v1/connectors/${sourceId}/discover?refresh=true`);
  expect(discovered.status(), await discovered.text()).toBe(200);
  const catalog = JSON.stringify(await discovered.json());
  expect(catalog).toContain("RetailStore");
  expect(catalog).toContain("SystemModstamp");

  const preview = await ws.admin.post(`/api/v1/connectors/${sourceId}/query_source`, { query: "SELECT Id, Name FROM Account" });
  expect(preview.status(), await preview.text()).toBe(200);
  expect(JSON.stringify(await preview.json())).toContain("Retailer 1");

  const table = unique("cgc_accounts");
  await sql(`CREATE TABLE ${table} (id text PRIMARY KEY, name text, account_number text, revenue numeric(12,2))`);
  const destinationId = await created(ws.admin, "/api/v1/connectors", {
    connector: { name: unique("pg"), connector_type: "destination", connector_name: "Postgresql", configuration: pgConfiguration() },
  });
  expect((await ws.admin.get(`/api/v1/connectors/${destinationId}/discover?refresh=true`)).status()).toBe(200);
  const modelId = await created(ws.admin, "/api/v1/models", {
    model: { name: unique("accounts"), query: "SELECT Id, Name, AccountNumber, AnnualRevenue FROM Account", query_type: "raw_sql", primary_key: "Id", connector_id: sourceId },
  });
  const syncId = await created(ws.admin, "/api/v1/syncs", {
    sync: {
      source_id: sourceId,
      destination_id: destinationId,
      model_id: modelId,
      schedule_type: "manual",
      sync_mode: "incremental",
      stream_name: table,
      configuration: { Id: "id", Name: "name", AccountNumber: "account_number", AnnualRevenue: "revenue" },
    },
  });
  const first = await waitForRun(ws.admin, syncId, await trigger(ws.admin, syncId));
  expect(first).toMatchObject({ status: "success", total_rows: 450, successful_rows: 450 });
  expect(await sqlRows(`SELECT count(*)::int AS n, sum(revenue)::text AS total FROM ${table}`)).toEqual([{ n: 450, total: "475256.25" }]);
  // 450 records in pages of 200: the read followed nextRecordsUrl twice.
  expect(sf.requests.filter((r) => /\/query\/01g/.test(r.url)).length).toBeGreaterThanOrEqual(2);

  const same = await waitForRun(ws.admin, syncId, await trigger(ws.admin, syncId));
  expect(same).toMatchObject({ status: "success", total_rows: 0 });

  const [id] = [...sf.records("Account").keys()];
  sf.touch("Account", id, { Name: "Retailer 1 (renamed)" });
  const changed = await waitForRun(ws.admin, syncId, await trigger(ws.admin, syncId));
  expect(changed).toMatchObject({ status: "success", total_rows: 1, successful_rows: 1 });
  expect(await sqlRows(`SELECT name FROM ${table} WHERE id = '${id}'`)).toEqual([{ name: "Retailer 1 (renamed)" }]);
});

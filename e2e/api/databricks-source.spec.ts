// The Databricks source over real HTTP, against the Statement Execution API 2.0 emulator
// (tests/emulators/databricks.ts): created from the reference's settings (plus base_url), checked,
// discovered, previewed and synced into PostgreSQL; the unchanged re-run sends 0 rows. A cluster's
// HTTP path is refused on save with a sentence saying what to give instead.
import { expect, test } from "@playwright/test";
import { dataWorkspace, ensureTestDatabase, PG, sql, unique, type DataWorkspace } from "../support/data";
import { createSourceTable, e2eDatabaseUrl, syncWarehouseSource } from "../support/warehouse-source";
import { startDatabricksEmulator } from "../../tests/emulators/databricks";

const TOKEN = `dapi-e2e-${unique("dbx")}`;
const WAREHOUSE = "e2e0a1b2c3d4e5f6";
const table = unique("dbx_src");
let ws: DataWorkspace;
let emulator: Awaited<ReturnType<typeof startDatabricksEmulator>>;

const configuration = (overrides: Record<string, unknown> = {}) => ({
  host: "dbc-a1b2c3d4-e5f6.cloud.databricks.com",
  port: "443",
  access_token: TOKEN,
  http_path: `/sql/1.0/warehouses/${WAREHOUSE}`,
  catalog: "main",
  schema: "public",
  base_url: emulator.url,
  ...overrides,
});

test.beforeAll(async () => {
  await ensureTestDatabase();
  await createSourceTable(table, 1200);
  emulator = await startDatabricksEmulator({ databaseUrl: e2eDatabaseUrl(PG), token: TOKEN, warehouseId: WAREHOUSE, catalog: "main", chunkRows: 250 });
  ws = await dataWorkspace("databricks");
});
test.afterAll(async () => {
  await ws?.dispose();
  await emulator?.close();
  await sql(`DROP TABLE IF EXISTS ${table}`);
});

test("a Databricks table syncs into PostgreSQL; the unchanged re-run sends 0 rows", async () => {
  await syncWarehouseSource(ws, { connectorName: "Databricks", configuration: configuration(), secret: TOKEN, secretPath: (c) => c.access_token, table, rows: 1200 });
  expect(emulator.control.chunkRequests).toBeGreaterThan(0);
});

test("a cluster's HTTP path is a 422 that says to give the SQL warehouse's", async () => {
  const res = await ws.admin.post("/api/v1/connectors", {
    connector: { name: unique("dbx"), connector_type: "source", connector_name: "Databricks", configuration: configuration({ http_path: "sql/protocolv1/o/1234567489/0000-1111111-abcd90" }) },
  });
  expect(res.status()).toBe(422);
  const text = await res.text();
  expect(text).toMatch(/warehouses/);
  expect(text).not.toContain(TOKEN);
});

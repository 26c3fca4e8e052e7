// The Snowflake source over real HTTP, against the SQL API v2 emulator (tests/emulators/snowflake.ts):
// created from the reference's settings (plus base_url and a programmatic access token in the
// password field), checked, discovered, previewed and synced into PostgreSQL; the unchanged re-run
// sends 0 rows. A wrong token fails check with the sentence that says what Snowflake wants.
import { expect, test } from "@playwright/test";
import { dataWorkspace, ensureTestDatabase, PG, sql, unique, type DataWorkspace } from "../support/data";
import { createSourceTable, e2eDatabaseUrl, syncWarehouseSource } from "../support/warehouse-source";
import { startSnowflakeEmulator } from "../../tests/emulators/snowflake";

const TOKEN = `pat-e2e-${unique("sf")}`;
const table = unique("sf_src");
let ws: DataWorkspace;
let emulator: Awaited<ReturnType<typeof startSnowflakeEmulator>>;

const configuration = (password = TOKEN) => ({
  credentials: { auth_type: "username/password", username: "MULTIWOVEN_USER", password },
  host: "acme-prod.snowflakecomputing.com",
  role: "MULTIWOVEN_ROLE",
  warehouse: "MULTIWOVEN_WAREHOUSE",
  database: "MULTIWOVEN_DATABASE",
  schema: "public",
  base_url: emulator.url,
});

test.beforeAll(async () => {
  await ensureTestDatabase();
  await createSourceTable(table, 1200);
  emulator = await startSnowflakeEmulator({ databaseUrl: e2eDatabaseUrl(PG), token: TOKEN, partitionRows: 250, database: "MULTIWOVEN_DATABASE" });
  ws = await dataWorkspace("snowflake");
});
test.afterAll(async () => {
  await ws?.dispose();
  await emulator?.close();
  await sql(`DROP TABLE IF EXISTS ${table}`);
});

test("a Snowflake table syncs into PostgreSQL; the unchanged re-run sends 0 rows", async () => {
  await syncWarehouseSource(ws, {
    connectorName: "Snowflake",
    configuration: configuration(),
    secret: TOKEN,
    secretPath: (c) => (c.credentials as Record<string, unknown>).password,
    table,
    rows: 1200,
  });
  expect(emulator.control.partitionRequests).toBeGreaterThan(0);
});

test("a plain password is refused with the sentence that says the SQL API wants a token", async () => {
  const res = await ws.admin.post("/api/v1/connector_definitions/check_connection", {
    type: "source",
    name: "Snowflake",
    connection_spec: configuration("my-plain-password"),
  });
  expect(res.status()).toBe(200);
  const body = await res.json();
  expect(body).toMatchObject({ result: "failure", details: expect.stringMatching(/programmatic access token \(PAT\)/) });
  expect(JSON.stringify(body)).not.toContain("my-plain-password");
});

// The ClickHouse source over real HTTP: a private ClickHouse server (Debian's clickhouse-server,
// started here on loopback ports) is created as a connector from the reference's own settings,
// discovered, previewed, modelled and synced into PostgreSQL; an unchanged re-run sends nothing, a
// changed row is sent alone.
import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { startClickhouse, type ClickhouseServer } from "../../tests/support/clickhouse-server";
import { trigger, waitForRun } from "../support/run-scenarios";
import { dataWorkspace, pgConfiguration, sql, sqlRows, unique, type DataWorkspace } from "../support/data";

let ws: DataWorkspace;
let server: ClickhouseServer;
const DB = "e2e_src";

async function created(api: DataWorkspace["admin"], url: string, data: unknown): Promise<number> {
  const res = await api.post(url, data);
  expect(res.status(), await res.text()).toBeLessThan(300);
  const body = await res.json();
  return Number(body.data?.id ?? body.id);
}

test.beforeAll(async () => {
  test.setTimeout(120_000);
  server = await startClickhouse();
  await server.exec(`CREATE DATABASE ${DB}`);
  await server.exec(
    `CREATE TABLE ${DB}.contacts (id UInt64, email String, score Decimal(10, 2), updated_at DateTime) ENGINE = MergeTree ORDER BY id`,
  );
  await server.exec(
    `INSERT INTO ${DB}.contacts SELECT number + 1, concat('u', toString(number + 1), '@example.com'), toDecimal64(number, 2) / 4, toDateTime('2024-01-01 00:00:00') + number FROM system.numbers LIMIT 500`,
  );
  ws = await dataWorkspace("clickhouse");
});

test.afterAll(async () => {
  await ws?.dispose();
  await server?.stop();
});

test("a ClickHouse table syncs into PostgreSQL, re-runs send only what changed", async () => {
  test.setTimeout(180_000);
  // The reference's minimal settings, pointed at this test's server.
  const reference = JSON.parse(readFileSync(path.resolve("tests/fixtures/reference-settings/source-Clickhouse.json"), "utf8")) as {
    connector_name: string;
    configuration: Record<string, string>;
  };
  const configuration = { ...reference.configuration, url: server.url, password: server.password, database: DB };
  const sourceId = await created(ws.admin, "/api/v1/connectors", {
    connector: { name: unique("ch"), connector_type: "source", connector_name: reference.connector_name, configuration },
  });
  const shown = await ws.admin.get(`/api/v1/connectors/${sourceId}`);
  expect(await shown.text()).not.toContain(server.password);

  const check = await ws.admin.post(`/api/v1/connectors/${sourceId}/check`, {});
  expect(check.status(), await check.text()).toBe(200);
  expect(JSON.stringify(await check.json())).toMatch(/Connected to ClickHouse/);

  const discovered = await ws.admin.get(`/api/v1/connectors/${sourceId}/discover?refresh=true`);
  expect(discovered.status(), await discovered.text()).toBe(200);
  const catalog = JSON.stringify(await discovered.json());
  expect(catalog).toContain("contacts");
  expect(catalog).toContain("Decimal(10, 2)");

  const query = "SELECT id, email, score, updated_at FROM contacts";
  const preview = await ws.admin.post(`/api/v1/connectors/${sourceId}/query_source`, { query: `${query} ORDER BY id` });
  expect(preview.status(), await preview.text()).toBe(200);
  const previewText = JSON.stringify(await preview.json());
  expect(previewText).toContain("u1@example.com");
  expect(previewText).toContain("2024-01-01T00:00:00.000Z");
  const refused = await ws.admin.post(`/api/v1/connectors/${sourceId}/query_source`, { query: "SELECT 1; DROP TABLE contacts" });
  expect(refused.status()).toBeGreaterThanOrEqual(400);
  expect(refused.status()).toBeLessThan(500);

  const table = unique("ch_contacts");
  await sql(`CREATE TABLE ${table} (id bigint PRIMARY KEY, email text, score numeric(10,2), updated_at timestamptz)`);
  const destinationId = await created(ws.admin, "/api/v1/connectors", {
    connector: { name: unique("pg"), connector_type: "destination", connector_name: "Postgresql", configuration: pgConfiguration() },
  });
  expect((await ws.admin.get(`/api/v1/connectors/${destinationId}/discover?refresh=true`)).status()).toBe(200);
  const modelId = await created(ws.admin, "/api/v1/models", {
    model: { name: unique("contacts"), query, query_type: "raw_sql", primary_key: "id", connector_id: sourceId },
  });
  const syncId = await created(ws.admin, "/api/v1/syncs", {
    sync: {
      source_id: sourceId,
      destination_id: destinationId,
      model_id: modelId,
      schedule_type: "manual",
      sync_mode: "incremental",
      stream_name: table,
      configuration: { id: "id", email: "email", score: "score", updated_at: "updated_at" },
    },
  });
  const first = await waitForRun(ws.admin, syncId, await trigger(ws.admin, syncId));
  expect(first).toMatchObject({ status: "success", total_rows: 500, successful_rows: 500 });
  expect(await sqlRows(`SELECT count(*)::int AS n FROM ${table}`)).toEqual([{ n: 500 }]);
  expect(await sqlRows(`SELECT email, score::text AS score, updated_at = '2024-01-01 00:00:03+00' AS at FROM ${table} WHERE id = 4`)).toEqual([
    { email: "u4@example.com", score: "0.75", at: true },
  ]);

  const same = await waitForRun(ws.admin, syncId, await trigger(ws.admin, syncId));
  expect(same).toMatchObject({ status: "success", total_rows: 0 });

  // ClickHouse 18.16 has no UPDATE statement: ALTER … UPDATE is a mutation, applied in the background.
  await server.exec(`ALTER TABLE ${DB}.contacts UPDATE email = 'changed@example.com' WHERE id = 42`);
  await expect
    .poll(async () => (await server.exec(`SELECT email FROM ${DB}.contacts WHERE id = 42`)).trim(), { timeout: 30_000 })
    .toBe("changed@example.com");
  const changed = await waitForRun(ws.admin, syncId, await trigger(ws.admin, syncId));
  expect(changed).toMatchObject({ status: "success", total_rows: 1, successful_rows: 1 });
  expect(await sqlRows(`SELECT email FROM ${table} WHERE id = 42`)).toEqual([{ email: "changed@example.com" }]);
});

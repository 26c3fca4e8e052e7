// The AwsAthena source over real HTTP, against tests/emulators/athena.ts (started here; its SQL runs
// on the local PostgreSQL `test` database, a schema per Athena database): created from the
// reference's settings (plus the emulator's endpoint), checked, discovered, previewed, a model and a
// sync into PostgreSQL, whose unchanged re-run sends nothing; the secret key never comes back.
import { expect, test } from "@playwright/test";
import { startAthenaEmulator } from "../../tests/emulators/athena";
import { trigger, waitForRun } from "../support/run-scenarios";
import { dataWorkspace, MASK, PG, pgConfiguration, sql, sqlRows, unique, type DataWorkspace } from "../support/data";

const SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
const database = unique("e2e_athena");
const pgUrl = `postgres://${encodeURIComponent(PG.user)}${PG.password ? `:${encodeURIComponent(PG.password)}` : ""}@${PG.host}:${PG.port}/${PG.database}`;

let ws: DataWorkspace;
let athena: Awaited<ReturnType<typeof startAthenaEmulator>>;

async function created(api: DataWorkspace["admin"], url: string, data: unknown): Promise<number> {
  const res = await api.post(url, data);
  expect(res.status(), await res.text()).toBeLessThan(300);
  const body = await res.json();
  return Number(body.data?.id ?? body.id);
}

test.beforeAll(async () => {
  ws = await dataWorkspace("athena");
  await sql(`CREATE SCHEMA ${database}`);
  await sql(`CREATE TABLE ${database}.orders (id bigint PRIMARY KEY, customer text NOT NULL, placed_at timestamp NOT NULL)`);
  await sql(`INSERT INTO ${database}.orders SELECT g, 'c' || g, timestamp '2024-01-01' + g * interval '1 minute' FROM generate_series(1, 2500) g`);
  athena = await startAthenaEmulator({ pgUrl, accessKeyId: "AKIAIOSFODNN7EXAMPLE", region: "us-east-1", workgroup: "primary", catalog: "AwsDataCatalog", databases: [database] });
});

test.afterAll(async () => {
  await athena?.close();
  await sql(`DROP SCHEMA IF EXISTS ${database} CASCADE`);
  await ws?.dispose();
});

test("an Athena table syncs into PostgreSQL; the unchanged re-run sends nothing", async () => {
  const configuration = {
    access_key: "AKIAIOSFODNN7EXAMPLE",
    secret_access_key: SECRET,
    region: "us-east-1",
    workgroup: "primary",
    catalog: "AwsDataCatalog",
    schema: database,
    output_location: "s3://example-bucket/athena-results/",
    endpoint: athena.url,
  };
  const sourceId = await created(ws.admin, "/api/v1/connectors", { connector: { name: unique("athena"), connector_type: "source", connector_name: "AwsAthena", configuration } });
  const shown = await (await ws.admin.get(`/api/v1/connectors/${sourceId}`)).text();
  expect(shown).not.toContain(SECRET);
  expect(shown).toContain(MASK);

  const check = await ws.admin.post(`/api/v1/connectors/${sourceId}/check`, {});
  expect(check.status(), await check.text()).toBe(200);
  expect(JSON.stringify(await check.json())).toContain("Connected to Athena in us-east-1");

  const discovered = await ws.admin.get(`/api/v1/connectors/${sourceId}/discover?refresh=true`);
  expect(discovered.status(), await discovered.text()).toBe(200);
  expect(JSON.stringify(await discovered.json())).toContain("orders");

  const preview = await ws.admin.post(`/api/v1/connectors/${sourceId}/query_source`, { query: "SELECT id, customer FROM orders ORDER BY id" });
  expect(preview.status(), await preview.text()).toBe(200);
  expect(JSON.stringify(await preview.json())).toContain("c1");

  const table = unique("athena_orders");
  await sql(`CREATE TABLE ${table} (id bigint PRIMARY KEY, customer text, placed_at timestamp)`);
  const destinationId = await created(ws.admin, "/api/v1/connectors", {
    connector: { name: unique("pg"), connector_type: "destination", connector_name: "Postgresql", configuration: pgConfiguration() },
  });
  expect((await ws.admin.get(`/api/v1/connectors/${destinationId}/discover?refresh=true`)).status()).toBe(200);
  const modelId = await created(ws.admin, "/api/v1/models", {
    model: { name: unique("orders"), query: "SELECT id, customer, placed_at FROM orders", query_type: "raw_sql", primary_key: "id", connector_id: sourceId },
  });
  const syncId = await created(ws.admin, "/api/v1/syncs", {
    sync: { source_id: sourceId, destination_id: destinationId, model_id: modelId, schedule_type: "manual", sync_mode: "incremental", stream_name: table, configuration: { id: "id", customer: "customer", placed_at: "placed_at" } },
  });
  const first = await waitForRun(ws.admin, syncId, await trigger(ws.admin, syncId));
  expect(first).toMatchObject({ status: "success", total_rows: 2500, successful_rows: 2500 });
  expect(await sqlRows(`SELECT count(*)::int AS n, max(placed_at)::text AS last FROM ${table}`)).toEqual([{ n: 2500, last: "2024-01-02 17:40:00" }]);

  const same = await waitForRun(ws.admin, syncId, await trigger(ws.admin, syncId));
  expect(same).toMatchObject({ status: "success", total_rows: 0 });
});

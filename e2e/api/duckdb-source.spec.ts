// The DuckDB source over real HTTP: a workspace's CSV file synced into PostgreSQL through the engine
// (a first sync, an unchanged re-run that sends nothing, a changed row sent alone), and the tenant
// boundary: another workspace's connector neither lists nor reads this workspace's files, and a
// model cannot read the server's files.
import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { trigger, waitForRun } from "../support/run-scenarios";
import { dataWorkspace, pgConfiguration, sql, sqlRows, unique, type DataWorkspace } from "../support/data";

// The server's DUCKDB_DATA_DIR (scripts/e2e-server.ts).
const DATA_ROOT = path.resolve(process.env.DUCKDB_DATA_DIR ?? ".data/e2e-duckdb");

let ws: DataWorkspace;
let other: DataWorkspace;
let dir: string;

async function created(api: DataWorkspace["admin"], url: string, data: unknown): Promise<number> {
  const res = await api.post(url, data);
  expect(res.status(), await res.text()).toBeLessThan(300);
  const body = await res.json();
  return Number(body.data?.id ?? body.id);
}

const duckConnector = (api: DataWorkspace["admin"]) =>
  created(api, "/api/v1/connectors", { connector: { name: unique("duck"), connector_type: "source", connector_name: "DuckDB", configuration: {} } });

const csv = (rows: [number, string][]) => `id,email\n${rows.map(([id, email]) => `${id},${email}`).join("\n")}\n`;

test.beforeAll(async () => {
  ws = await dataWorkspace("duckdb");
  other = await dataWorkspace("duckdb-other");
  dir = path.join(DATA_ROOT, `workspace-${ws.workspaceId}`);
  await mkdir(dir, { recursive: true });
  await mkdir(path.join(DATA_ROOT, `workspace-${other.workspaceId}`), { recursive: true });
  await writeFile(path.join(dir, "contacts.csv"), csv(Array.from({ length: 500 }, (_, i) => [i + 1, `u${i + 1}@example.com`])));
});

test.afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await rm(path.join(DATA_ROOT, `workspace-${other.workspaceId}`), { recursive: true, force: true });
  await ws?.dispose();
  await other?.dispose();
});

test("a CSV file syncs into PostgreSQL, re-runs send only what changed", async () => {
  const sourceId = await duckConnector(ws.admin);
  const check = await ws.admin.post(`/api/v1/connectors/${sourceId}/check`, {});
  expect(check.status(), await check.text()).toBe(200);
  expect(JSON.stringify(await check.json())).toMatch(/1 data file/);

  const discovered = await ws.admin.get(`/api/v1/connectors/${sourceId}/discover?refresh=true`);
  expect(discovered.status(), await discovered.text()).toBe(200);
  expect(JSON.stringify(await discovered.json())).toContain("contacts.csv");

  const table = unique("duck_contacts");
  await sql(`CREATE TABLE ${table} (id integer PRIMARY KEY, email text)`);
  const destinationId = await created(ws.admin, "/api/v1/connectors", {
    connector: { name: unique("pg"), connector_type: "destination", connector_name: "Postgresql", configuration: pgConfiguration() },
  });
  const catalog = await ws.admin.get(`/api/v1/connectors/${destinationId}/discover?refresh=true`);
  expect(catalog.status()).toBe(200);
  const modelId = await created(ws.admin, "/api/v1/models", {
    model: { name: unique("contacts"), query: 'SELECT id, email FROM "contacts.csv"', query_type: "raw_sql", primary_key: "id", connector_id: sourceId },
  });
  const preview = await ws.admin.post(`/api/v1/connectors/${sourceId}/query_source`, { query: 'SELECT id, email FROM "contacts.csv" ORDER BY id' });
  expect(preview.status(), await preview.text()).toBe(200);
  expect(JSON.stringify(await preview.json())).toContain("u1@example.com");

  const syncId = await created(ws.admin, "/api/v1/syncs", {
    sync: {
      source_id: sourceId,
      destination_id: destinationId,
      model_id: modelId,
      schedule_type: "manual",
      sync_mode: "incremental",
      stream_name: table,
      configuration: { id: "id", email: "email" },
    },
  });
  const first = await waitForRun(ws.admin, syncId, await trigger(ws.admin, syncId));
  expect(first).toMatchObject({ status: "success", total_rows: 500, successful_rows: 500 });
  expect(await sqlRows(`SELECT count(*)::int AS n FROM ${table}`)).toEqual([{ n: 500 }]);

  const same = await waitForRun(ws.admin, syncId, await trigger(ws.admin, syncId));
  expect(same).toMatchObject({ status: "success", total_rows: 0 });

  await writeFile(path.join(dir, "contacts.csv"), csv(Array.from({ length: 500 }, (_, i) => [i + 1, i === 41 ? "changed@example.com" : `u${i + 1}@example.com`])));
  const changed = await waitForRun(ws.admin, syncId, await trigger(ws.admin, syncId));
  expect(changed).toMatchObject({ status: "success", total_rows: 1, successful_rows: 1 });
  expect(await sqlRows(`SELECT email FROM ${table} WHERE id = 42`)).toEqual([{ email: "changed@example.com" }]);
});

test("another workspace's DuckDB connector sees only its own directory", async () => {
  const otherSource = await duckConnector(other.admin);
  const discovered = await other.admin.get(`/api/v1/connectors/${otherSource}/discover?refresh=true`);
  expect(discovered.status(), await discovered.text()).toBe(200);
  expect(JSON.stringify(await discovered.json())).not.toContain("contacts.csv");
  for (const query of [
    'SELECT * FROM "contacts.csv"',
    `SELECT * FROM read_csv('${path.join(dir, "contacts.csv")}')`,
    `SELECT * FROM read_csv('../workspace-${ws.workspaceId}/contacts.csv')`,
    "SELECT * FROM read_csv('/etc/passwd')",
  ]) {
    const res = await other.admin.post(`/api/v1/connectors/${otherSource}/query_source`, { query });
    expect(res.status(), query).toBeGreaterThanOrEqual(400);
    expect(res.status(), query).toBeLessThan(500);
    const text = await res.text();
    expect(text).not.toContain("u1@example.com");
    expect(text).not.toContain(DATA_ROOT);
  }
  // A tenant cannot point the connector at another workspace by writing the server's key itself.
  const forged = await other.admin.post("/api/v1/connector_definitions/check_connection", {
    type: "source",
    name: "DuckDB",
    connection_spec: { __workspace_id: ws.workspaceId },
  });
  expect(forged.status()).toBe(200);
  expect(JSON.stringify(await forged.json())).toMatch(/0 data files|invalid/);
});

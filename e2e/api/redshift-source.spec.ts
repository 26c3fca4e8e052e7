// The Redshift source over real HTTP, against the local PostgreSQL server acting as the Redshift
// endpoint (no Redshift cluster is reachable from here; docs/connectors.md, "Redshift", says what of
// PostgreSQL the connector relies on): created from the reference's settings (port as a string),
// checked, discovered, previewed, synced into PostgreSQL; an unchanged re-run sends nothing and an
// incremental run sends only rows at or after the saved cursor.
import { expect, test } from "@playwright/test";
import { trigger, waitForRun } from "../support/run-scenarios";
import {
  dataWorkspace,
  MASK,
  PG,
  pgConfiguration,
  sql,
  sqlRows,
  unique,
  type DataWorkspace,
} from "../support/data";

let ws: DataWorkspace;
const schema = unique("rs_src");
const PASSWORD = PG.password || "unused-redshift-password";

async function created(api: DataWorkspace["admin"], url: string, data: unknown): Promise<number> {
  const res = await api.post(url, data);
  expect(res.status(), await res.text()).toBeLessThan(300);
  const body = await res.json();
  return Number(body.data?.id ?? body.id);
}

test.beforeAll(async () => {
  ws = await dataWorkspace("redshift");
  await sql(`CREATE SCHEMA ${schema}`);
  await sql(
    `CREATE TABLE ${schema}.customers (id integer PRIMARY KEY, email varchar(80) NOT NULL, updated_at timestamp NOT NULL)`,
  );
  await sql(
    `INSERT INTO ${schema}.customers SELECT g, 'c' || g || '@example.com', timestamp '2024-03-01' + g * interval '1 minute' FROM generate_series(1, 300) g`,
  );
});

test.afterAll(async () => {
  await sql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await ws?.dispose();
});

test("a Redshift source syncs into PostgreSQL; unchanged re-runs send nothing, incremental runs only what is new", async () => {
  // The reference's configuration object, with our optional ssl_mode: the local server has no TLS.
  const configuration = {
    host: PG.host,
    port: String(PG.port),
    database: PG.database,
    schema,
    credentials: { auth_type: "username/password", username: PG.user, password: PASSWORD },
    ssl_mode: "disable",
  };
  const sourceId = await created(ws.admin, "/api/v1/connectors", {
    connector: {
      name: unique("redshift"),
      connector_type: "source",
      connector_name: "Redshift",
      configuration,
    },
  });
  const shown = await ws.admin.get(`/api/v1/connectors/${sourceId}`);
  const shownText = await shown.text();
  expect(shownText).toContain(MASK);
  if (PG.password) expect(shownText).not.toContain(PG.password);

  const check = await ws.admin.post(`/api/v1/connectors/${sourceId}/check`, {});
  expect(check.status(), await check.text()).toBe(200);
  expect((await check.json()).details).toMatch(/not a Redshift cluster/);

  const discovered = await ws.admin.get(`/api/v1/connectors/${sourceId}/discover?refresh=true`);
  expect(discovered.status(), await discovered.text()).toBe(200);
  const catalogText = JSON.stringify(await discovered.json());
  expect(catalogText).toContain("customers");
  expect(catalogText).toContain("character varying(80)");

  const preview = await ws.admin.post(`/api/v1/connectors/${sourceId}/query_source`, {
    query: `SELECT id, email FROM ${schema}.customers ORDER BY id`,
  });
  expect(preview.status(), await preview.text()).toBe(200);
  expect(JSON.stringify(await preview.json())).toContain("c1@example.com");

  const refused = await ws.admin.post(`/api/v1/connectors/${sourceId}/query_source`, {
    query: `DELETE FROM ${schema}.customers`,
  });
  expect(refused.status()).toBeGreaterThanOrEqual(400);
  expect(refused.status()).toBeLessThan(500);

  const table = unique("rs_customers");
  await sql(`CREATE TABLE ${table} (id integer PRIMARY KEY, email text, updated_at timestamp)`);
  const destinationId = await created(ws.admin, "/api/v1/connectors", {
    connector: {
      name: unique("pg"),
      connector_type: "destination",
      connector_name: "Postgresql",
      configuration: pgConfiguration(),
    },
  });
  expect((await ws.admin.get(`/api/v1/connectors/${destinationId}/discover?refresh=true`)).status()).toBe(
    200,
  );
  const modelId = await created(ws.admin, "/api/v1/models", {
    model: {
      name: unique("customers"),
      query: `SELECT id, email, updated_at FROM ${schema}.customers`,
      query_type: "raw_sql",
      primary_key: "id",
      connector_id: sourceId,
    },
  });
  const syncId = await created(ws.admin, "/api/v1/syncs", {
    sync: {
      source_id: sourceId,
      destination_id: destinationId,
      model_id: modelId,
      schedule_type: "manual",
      sync_mode: "incremental",
      cursor_field: "updated_at",
      stream_name: table,
      configuration: { id: "id", email: "email", updated_at: "updated_at" },
    },
  });

  const first = await waitForRun(ws.admin, syncId, await trigger(ws.admin, syncId));
  expect(first).toMatchObject({ status: "success", total_rows: 300, successful_rows: 300 });
  expect(await sqlRows(`SELECT count(*)::int AS n FROM ${table}`)).toEqual([{ n: 300 }]);
  expect(await sqlRows(`SELECT email FROM ${table} WHERE id = 7`)).toEqual([{ email: "c7@example.com" }]);

  const same = await waitForRun(ws.admin, syncId, await trigger(ws.admin, syncId));
  expect(same).toMatchObject({ status: "success", total_rows: 0 });

  // One row changed after the cursor, one new row: only those two are sent.
  await sql(
    `UPDATE ${schema}.customers SET email = 'changed@example.com', updated_at = timestamp '2024-03-02 12:00' WHERE id = 5`,
  );
  await sql(`INSERT INTO ${schema}.customers VALUES (301, 'new@example.com', timestamp '2024-03-02 12:01')`);
  const incremental = await waitForRun(ws.admin, syncId, await trigger(ws.admin, syncId));
  expect(incremental).toMatchObject({ status: "success", total_rows: 2, successful_rows: 2 });
  expect(await sqlRows(`SELECT id, email FROM ${table} WHERE id IN (5, 301) ORDER BY id`)).toEqual([
    { id: 5, email: "changed@example.com" },
    { id: 301, email: "new@example.com" },
  ]);
  const sync = await (await ws.admin.get(`/api/v1/syncs/${syncId}`)).json();
  expect(
    String(sync.attributes?.current_cursor_field ?? sync.data?.attributes?.current_cursor_field),
  ).toMatch(/^2024-03-02T12:01/);
});

// The warehouse sources' e2e scenario (Snowflake, Databricks): a source created from the reference's
// settings plus the emulator's URL, checked, discovered, previewed, modelled, synced into PostgreSQL;
// the rows arrive and an unchanged re-run sends none. The emulators (tests/emulators) run in this
// process and execute the statements on the e2e PostgreSQL database.
import { expect } from "@playwright/test";
import { trigger, waitForRun } from "./run-scenarios";
import { MASK, pgConfiguration, sql, sqlRows, unique, type DataWorkspace } from "./data";

type Api = DataWorkspace["admin"];

async function created(api: Api, url: string, data: unknown): Promise<number> {
  const res = await api.post(url, data);
  expect(res.status(), await res.text()).toBeLessThan(300);
  const body = await res.json();
  return Number(body.data?.id ?? body.id);
}

export async function syncWarehouseSource(
  ws: DataWorkspace,
  options: { connectorName: string; configuration: Record<string, unknown>; secret: string; secretPath: (c: Record<string, unknown>) => unknown; table: string; rows: number },
): Promise<void> {
  const api = ws.admin;
  const sourceId = await created(api, "/api/v1/connectors", {
    connector: { name: unique(options.connectorName.toLowerCase()), connector_type: "source", connector_name: options.connectorName, configuration: options.configuration },
  });
  const shown = await api.get(`/api/v1/connectors/${sourceId}`);
  const shownText = await shown.text();
  expect(shownText).not.toContain(options.secret);
  expect(options.secretPath((JSON.parse(shownText) as { data: { attributes: { configuration: Record<string, unknown> } } }).data.attributes.configuration)).toBe(MASK);

  const check = await api.post(`/api/v1/connectors/${sourceId}/check`, {});
  expect(check.status(), await check.text()).toBe(200);
  expect(await check.json()).toMatchObject({ result: "success" });

  const discovered = await api.get(`/api/v1/connectors/${sourceId}/discover?refresh=true`);
  expect(discovered.status(), await discovered.text()).toBe(200);
  expect(JSON.stringify(await discovered.json())).toContain(options.table);

  const preview = await api.post(`/api/v1/connectors/${sourceId}/query_source`, { query: `SELECT id, email FROM ${options.table} ORDER BY id` });
  const previewText = await preview.text();
  expect(preview.status(), previewText).toBe(200);
  expect(previewText).toContain("user1@example.com");
  expect(previewText).not.toContain(options.secret);

  const destinationTable = unique(`${options.connectorName.toLowerCase()}_dst`);
  await sql(`CREATE TABLE ${destinationTable} (id integer PRIMARY KEY, email text)`);
  try {
    const destinationId = await created(api, "/api/v1/connectors", {
      connector: { name: unique("pg"), connector_type: "destination", connector_name: "Postgresql", configuration: pgConfiguration() },
    });
    expect((await api.get(`/api/v1/connectors/${destinationId}/discover?refresh=true`)).status()).toBe(200);
    const modelId = await created(api, "/api/v1/models", {
      model: { name: unique("wh_model"), query: `SELECT id, email FROM ${options.table}`, query_type: "raw_sql", primary_key: "id", connector_id: sourceId },
    });
    const syncId = await created(api, "/api/v1/syncs", {
      sync: {
        source_id: sourceId,
        destination_id: destinationId,
        model_id: modelId,
        schedule_type: "manual",
        sync_mode: "incremental",
        stream_name: destinationTable,
        configuration: { id: "id", email: "email" },
      },
    });
    const first = await waitForRun(api, syncId, await trigger(api, syncId));
    expect(first).toMatchObject({ status: "success", total_rows: options.rows, successful_rows: options.rows });
    expect(await sqlRows(`SELECT count(*)::int AS n, max(email) FILTER (WHERE id = 1) AS first FROM ${destinationTable}`)).toEqual([{ n: options.rows, first: "user1@example.com" }]);

    const again = await waitForRun(api, syncId, await trigger(api, syncId));
    expect(again).toMatchObject({ status: "success", total_rows: 0 });
  } finally {
    await sql(`DROP TABLE IF EXISTS ${destinationTable}`);
  }
}

/** A source table of `rows` rows in the e2e database, for the emulators to read. */
export async function createSourceTable(table: string, rows: number): Promise<void> {
  await sql(`CREATE TABLE ${table} (id integer PRIMARY KEY, email text NOT NULL)`);
  await sql(`INSERT INTO ${table} SELECT i, 'user' || i || '@example.com' FROM generate_series(1, ${rows}) AS i`);
}

/** The e2e database's URL (e2e/support/data.ts PG). */
export function e2eDatabaseUrl(pg: { host: string; port: number; user: string; password: string; database: string }): string {
  const auth = pg.password ? `${encodeURIComponent(pg.user)}:${encodeURIComponent(pg.password)}` : encodeURIComponent(pg.user);
  return `postgres://${auth}@${pg.host}:${pg.port}/${pg.database}`;
}

// Models whose PostgreSQL planner estimate is badly off, each synced to an HTTP destination (a
// holding one keeps a run observable mid-way: rows_read grows by read batches, ENGINE_BATCH_SIZE): a table whose statistics are stale (ANALYZEd at
// `analyzed` rows, then all but `live` deleted, autovacuum off: the planner still expects
// `analyzed`), and a filter the planner guesses at 0.5% of the rows though it keeps them all.
import { expect } from "@playwright/test";
import type { Api } from "./api";
import { pgConfiguration, sql, sqlRows, unique } from "./data";

async function created(api: Api, path: string, data: unknown): Promise<number> {
  const res = await api.post(path, data);
  expect(res.status(), await res.text()).toBeLessThan(300);
  const body = await res.json();
  return Number(body.data?.id ?? body.id);
}

/** PostgreSQL's planner estimate of `query`'s rows (EXPLAIN, as the engine used to read it). */
export async function plannerEstimate(query: string): Promise<number> {
  const [row] = await sqlRows<{ "QUERY PLAN": { Plan: { "Plan Rows": number } }[] }>(`EXPLAIN (FORMAT JSON) ${query}`);
  return row["QUERY PLAN"][0].Plan["Plan Rows"];
}

/**
 * A sync of `query` (columns id, email, hold) to an HTTP destination at `url`; rows whose `hold`
 * is true are held by a holding destination while it holds.
 */
export async function httpSync(api: Api, url: string, query: string): Promise<number> {
  const sourceId = await created(api, "/api/v1/connectors", {
    connector: { name: unique("source"), connector_type: "source", connector_name: "Postgresql", configuration: pgConfiguration() },
  });
  const destinationId = await created(api, "/api/v1/connectors", {
    connector: { name: unique("hook"), connector_type: "destination", connector_name: "Http", configuration: { destination_url: url, timeout: 300, batch_size: 1000 } },
  });
  const discovered = await api.get(`/api/v1/connectors/${destinationId}/discover?refresh=true`);
  expect(discovered.status(), await discovered.text()).toBe(200);
  const modelId = await created(api, "/api/v1/models", {
    model: { name: unique("estimated"), query, query_type: "raw_sql", primary_key: "id", connector_id: sourceId },
  });
  return created(api, "/api/v1/syncs", {
    sync: {
      name: unique("estimate-sync"),
      source_id: sourceId,
      destination_id: destinationId,
      model_id: modelId,
      schedule_type: "manual",
      sync_mode: "full_refresh",
      stream_name: "webhook",
      configuration: ["id", "email", "hold"].map((c) => ({ from: c, to: c, mapping_type: "standard" })),
    },
  });
}

/** A table of `live` rows whose statistics say `analyzed`; its model holds its last quarter of rows. */
export async function staleStatistics(live = 37, analyzed = 50_000): Promise<{ table: string; query: string }> {
  const table = unique("e2e_stale");
  await sql(`CREATE TABLE ${table} (id integer PRIMARY KEY, email text NOT NULL) WITH (autovacuum_enabled = off)`);
  await sql(`INSERT INTO ${table} SELECT g, 'u' || g || '@example.com' FROM generate_series(1, ${analyzed}) g`);
  await sql(`ANALYZE ${table}`);
  await sql(`DELETE FROM ${table} WHERE id > ${live}`);
  return { table, query: `SELECT id, email, id > ${Math.floor(live * 0.75)} AS hold FROM ${table} ORDER BY id` };
}

/** A table of `rows` rows behind a filter that keeps them all, which the planner guesses at 0.5% of them. */
export async function underestimated(rows = 20_000): Promise<{ table: string; query: string }> {
  const table = unique("e2e_underestimated");
  await sql(`CREATE TABLE ${table} (id integer PRIMARY KEY, email text NOT NULL)`);
  await sql(`INSERT INTO ${table} SELECT g, 'u' || g || '@example.com' FROM generate_series(1, ${rows}) g`);
  await sql(`ANALYZE ${table}`);
  return { table, query: `SELECT id, email, id > ${Math.floor(rows * 0.75)} AS hold FROM ${table} WHERE id % 1 = 0 ORDER BY id` };
}

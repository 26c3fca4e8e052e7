// Syncs whose runs show what a person must be able to tell apart: a large source whose run can be
// held mid-way (progress), and a destination that refuses some rows (a success with rejections).
import { expect, type APIResponse } from "@playwright/test";
import type { Api } from "./api";
import { pgConfiguration, sql, unique } from "./data";

export const TERMINAL = ["success", "failed", "canceled"];

type Attributes = Record<string, unknown> & { status: string; progress: Record<string, unknown> };

async function created(api: Api, path: string, data: unknown): Promise<number> {
  const res = await api.post(path, data);
  expect(res.status(), await res.text()).toBeLessThan(300);
  const body = await res.json();
  return Number(body.data?.id ?? body.id);
}

async function pgSource(api: Api): Promise<number> {
  return created(api, "/api/v1/connectors", {
    connector: { name: unique("source"), connector_type: "source", connector_name: "Postgresql", configuration: pgConfiguration() },
  });
}

export async function runAttributes(api: Api, syncId: number, runId: string): Promise<Attributes> {
  const res = await api.get(`/api/v1/syncs/${syncId}/sync_runs/${runId}`);
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()).data.attributes as Attributes;
}

export async function syncAttributes(api: Api, syncId: number): Promise<Record<string, unknown> & { status: string }> {
  const res = await api.get(`/api/v1/syncs/${syncId}`);
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()).attributes;
}

/** Starts a run of the sync (POST /schedule_syncs); its id. */
/**
 * POST …/plan, sent again after its Retry-After while the server's plan slots are full (429): spec
 * files run side by side, and plan-slots.spec.ts holds slots with slow plans on purpose.
 */
export async function postPlan(api: Api, syncId: number | string, body?: unknown): Promise<APIResponse> {
  for (let attempt = 1; ; attempt++) {
    const res = await api.post(`/api/v1/syncs/${syncId}/plan`, body);
    if (res.status() !== 429 || attempt === 12) return res;
    await new Promise((resolve) => setTimeout(resolve, Number(res.headers()["retry-after"] ?? "5") * 1000));
  }
}

export async function trigger(api: Api, syncId: number): Promise<string> {
  const res = await api.post("/api/v1/schedule_syncs", { schedule_sync: { sync_id: syncId } });
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()).data.id as string;
}

/** Waits (polling the API) until the run satisfies `done`; its attributes then. */
export async function waitForRun(api: Api, syncId: number, runId: string, done: (a: Attributes) => boolean = (a) => TERMINAL.includes(a.status)): Promise<Attributes> {
  let last: Attributes | undefined;
  await expect
    .poll(
      async () => {
        last = await runAttributes(api, syncId, runId);
        return done(last);
      },
      { timeout: 90_000, intervals: [200, 500, 1000] },
    )
    .toBe(true);
  return last!;
}

/**
 * A large source (`rows` rows, ANALYZEd so PostgreSQL's estimate is sound) to an HTTP destination at
 * `url`. Its last quarter of rows carries "hold": true, so a holding destination keeps the run's last
 * batch open and the run observable at about 75%.
 */
export async function largeSourceSync(api: Api, url: string, rows = 20_000): Promise<{ syncId: number; table: string; rows: number }> {
  const table = unique("e2e_progress");
  await sql(`CREATE TABLE ${table} (id integer PRIMARY KEY, email text NOT NULL)`);
  await sql(`INSERT INTO ${table} SELECT g, 'u' || g || '@example.com' FROM generate_series(1, ${rows}) g`);
  await sql(`ANALYZE ${table}`);
  const sourceId = await pgSource(api);
  const destinationId = await created(api, "/api/v1/connectors", {
    connector: { name: unique("hook"), connector_type: "destination", connector_name: "Http", configuration: { destination_url: url, timeout: 300, batch_size: 1000 } },
  });
  const discovered = await api.get(`/api/v1/connectors/${destinationId}/discover?refresh=true`);
  expect(discovered.status(), await discovered.text()).toBe(200);
  const modelId = await created(api, "/api/v1/models", {
    model: {
      name: unique("large"),
      query: `SELECT id, email, id > ${Math.floor(rows * 0.75)} AS hold FROM ${table} ORDER BY id`,
      query_type: "raw_sql",
      primary_key: "id",
      connector_id: sourceId,
    },
  });
  const syncId = await created(api, "/api/v1/syncs", {
    sync: {
      name: unique("large-sync"),
      source_id: sourceId,
      destination_id: destinationId,
      model_id: modelId,
      schedule_type: "manual",
      sync_mode: "full_refresh",
      stream_name: "webhook",
      configuration: [
        { from: "id", to: "id", mapping_type: "standard" },
        { from: "email", to: "email", mapping_type: "standard" },
        { from: "hold", to: "hold", mapping_type: "standard" },
      ],
    },
  });
  return { syncId, table, rows };
}

/**
 * A PostgreSQL source reading `SELECT id, email FROM src` and a PostgreSQL destination (discovered),
 * and `sync`, which creates a manual sync of that model into table `dst` mapping id and email: the
 * route the scenarios below share. `sync` answers the new sync's id.
 */
export async function pgToPgRoute(api: Api, src: string, dst: string, modelName = unique("people")) {
  const sourceId = await pgSource(api);
  const destinationId = await created(api, "/api/v1/connectors", {
    connector: { name: unique("warehouse"), connector_type: "destination", connector_name: "Postgresql", configuration: pgConfiguration() },
  });
  const discovered = await api.get(`/api/v1/connectors/${destinationId}/discover?refresh=true`);
  expect(discovered.status(), await discovered.text()).toBe(200);
  const modelId = await created(api, "/api/v1/models", {
    model: { name: modelName, query: `SELECT id, email FROM ${src}`, query_type: "raw_sql", primary_key: "id", connector_id: sourceId },
  });
  const sync = (fields: { name: string } & Record<string, unknown>) =>
    created(api, "/api/v1/syncs", {
      sync: {
        source_id: sourceId,
        destination_id: destinationId,
        model_id: modelId,
        schedule_type: "manual",
        sync_mode: "full_refresh",
        stream_name: dst,
        configuration: [
          { from: "id", to: "id", mapping_type: "standard" },
          { from: "email", to: "email", mapping_type: "standard" },
        ],
        ...fields,
      },
    });
  return { sourceId, destinationId, modelId, sync };
}

/**
 * PostgreSQL to PostgreSQL where the destination refuses `rejected` of `rows` rows (NOT NULL email):
 * after one run, its status is success with `rejected` failed rows.
 */
export async function rejectingSync(api: Api, rows = 20, rejected = 3): Promise<{ syncId: number; tables: string[] }> {
  const src = unique("e2e_reject_src");
  const dst = unique("e2e_reject_dst");
  await sql(`CREATE TABLE ${src} (id integer PRIMARY KEY, email text)`);
  await sql(`INSERT INTO ${src} SELECT g, CASE WHEN g <= ${rejected} THEN NULL ELSE 'u' || g || '@example.com' END FROM generate_series(1, ${rows}) g`);
  await sql(`CREATE TABLE ${dst} (id integer PRIMARY KEY, email text NOT NULL)`);
  const route = await pgToPgRoute(api, src, dst, unique("rejects"));
  return { syncId: await route.sync({ name: unique("rejecting-sync") }), tables: [src, dst] };
}

/** The signed-in user's name as a run's canceled_by shows it (the name, else the email). */
export async function actorName(api: Api): Promise<string> {
  const res = await api.get("/api/v1/users/me");
  expect(res.status(), await res.text()).toBe(200);
  const a = (await res.json()).data.attributes as { name?: string; email: string };
  return a.name?.trim() || a.email;
}

/**
 * PostgreSQL to PostgreSQL with delete detection on, so its blast-radius guard's defaults are in
 * force (20% deletes, no empty extract): `rows` people in the source, an empty destination table.
 */
export async function guardedSync(api: Api, rows = 20): Promise<{ syncId: number; src: string; dst: string }> {
  const src = unique("e2e_guard_src");
  const dst = unique("e2e_guard_dst");
  await sql(`CREATE TABLE ${src} (id integer PRIMARY KEY, email text)`);
  await sql(`INSERT INTO ${src} SELECT g, 'u' || g || '@example.com' FROM generate_series(1, ${rows}) g`);
  await sql(`CREATE TABLE ${dst} (id integer PRIMARY KEY, email text)`);
  const route = await pgToPgRoute(api, src, dst);
  const syncId = await route.sync({ name: unique("guarded-sync"), sync_mode: "incremental", detect_deletes: true });
  return { syncId, src, dst };
}

// Sequences over HTTP with real PostgreSQL → PostgreSQL syncs: A → B → C (each reads the table the one
// before it wrote) run in order; a failure in A stops B and C; cycles and other workspaces' syncs are
// refused; a Viewer can read but not change or start; GET /sync_runs/{id}?wait= long-polls by run id
// alone; past LONG_POLL_MAX_PER_WORKSPACE open waits a workspace gets 429.
import { expect, test } from "@playwright/test";
import { expectError, type Api } from "../support/api";
import { dataWorkspace, ensureTestDatabase, pgConfiguration, sql, sqlRows, unique, type DataWorkspace } from "../support/data";

let ws: DataWorkspace;
let other: DataWorkspace;
const src = unique("e2e_seq_src");
const [ta, tb, tc] = [unique("e2e_seq_a"), unique("e2e_seq_b"), unique("e2e_seq_c")];
let a: number;
let b: number;
let c: number;
let foreign: number;

interface Step {
  sync_id: number;
  state: string;
  reason: string | null;
  sync_run_id: number | null;
  started_at: string | null;
  finished_at: string | null;
}
interface SequenceRun {
  id: string;
  attributes: { status: string; sync_id: number; steps: Step[] };
}

async function ok(res: Promise<import("@playwright/test").APIResponse>, status = 200) {
  const r = await res;
  expect(r.status(), await r.text()).toBe(status);
  return r.json();
}

/** Source and destination connectors of `api`'s workspace, the destination discovered. */
async function connectors(api: Api) {
  const create = async (type: string) =>
    Number((await ok(api.post("/api/v1/connectors", { connector: { name: unique(type), connector_type: type, connector_name: "Postgresql", configuration: pgConfiguration() } }), 201)).data.id);
  const sourceId = await create("source");
  const destinationId = await create("destination");
  await ok(api.get(`/api/v1/connectors/${destinationId}/discover?refresh=true`));
  return { sourceId, destinationId };
}

async function newSync(api: Api, ids: { sourceId: number; destinationId: number }, query: string, stream: string, name: string): Promise<number> {
  const model = await ok(api.post("/api/v1/models", { model: { name: unique("m"), query, query_type: "raw_sql", primary_key: "id", connector_id: ids.sourceId } }), 201);
  const sync = await ok(
    api.post("/api/v1/syncs", {
      sync: {
        name: unique(name),
        source_id: ids.sourceId,
        destination_id: ids.destinationId,
        model_id: Number(model.data.id),
        schedule_type: "manual",
        sync_mode: "full_refresh",
        stream_name: stream,
        configuration: [
          { from: "id", to: "id", mapping_type: "standard" },
          { from: "email", to: "email", mapping_type: "standard" },
        ],
      },
    }),
  );
  return Number(sync.id);
}

const runAfter = (api: Api, syncId: number, ids: number[]) => api.put(`/api/v1/syncs/${syncId}/run_after`, { run_after: { sync_ids: ids } });

/** Long-polls the sequence run until it settles (each request waits up to 60 s). */
async function settled(id: string): Promise<SequenceRun> {
  for (let i = 0; i < 5; i++) {
    const body = (await ok(ws.viewer.get(`/api/v1/sequence_runs/${id}?wait=60`))).data as SequenceRun;
    if (body.attributes.status !== "running") return body;
  }
  throw new Error(`sequence run ${id} did not settle`);
}

const runsOf = async (syncId: number) => ((await ok(ws.viewer.get(`/api/v1/syncs/${syncId}/sync_runs`))).data as unknown[]).length;

test.beforeAll(async () => {
  await ensureTestDatabase();
  await sql(`CREATE TABLE ${src} (id integer PRIMARY KEY, email text)`);
  await sql(`INSERT INTO ${src} SELECT g, 'u' || g || '@example.com' FROM generate_series(1, 20) g`);
  for (const t of [ta, tb, tc]) await sql(`CREATE TABLE ${t} (id integer PRIMARY KEY, email text NOT NULL)`);
  ws = await dataWorkspace("seq");
  other = await dataWorkspace("seq-other");
  const ids = await connectors(ws.admin);
  // Each reads what the one before it wrote: only an ordered chain fills the last table.
  a = await newSync(ws.admin, ids, `SELECT id, email FROM ${src}`, ta, "A");
  b = await newSync(ws.admin, ids, `SELECT id, email FROM ${ta}`, tb, "B");
  c = await newSync(ws.admin, ids, `SELECT id, email FROM ${tb}`, tc, "C");
  await ok(runAfter(ws.admin, b, [a]));
  await ok(runAfter(ws.admin, c, [b]));
  foreign = await newSync(other.admin, await connectors(other.admin), `SELECT id, email FROM ${src}`, ta, "F");
});
test.afterAll(async () => {
  await ws?.dispose();
  await other?.dispose();
  for (const t of [src, `${src}_away`, ta, tb, tc]) await sql(`DROP TABLE IF EXISTS ${t}`);
});

test("A → B → C: a sequence run starts each sync after the one before it succeeded", async () => {
  expect((await ok(ws.viewer.get(`/api/v1/syncs/${b}/run_after`))).data.attributes).toEqual({ sync_id: b, sync_ids: [a], dependent_sync_ids: [c] });
  const key = unique("airflow-dag-run");
  const start = () => ws.admin.post(`/api/v1/syncs/${a}/sequence_runs`, undefined, { "Idempotency-Key": key });
  const started = (await ok(start(), 201)).data as SequenceRun;
  // A retried start with the same key answers the same sequence run (without it: 424, A is running).
  expect(((await ok(start(), 201)).data as SequenceRun).id).toBe(started.id);
  expect(started.attributes.steps.map((s) => [s.sync_id, s.state])).toEqual([
    [a, expect.stringMatching(/^(running|success)$/)],
    [b, "waiting"],
    [c, "waiting"],
  ]);
  const done = await settled(started.id);
  expect(done.attributes.status).toBe("success");
  const [sa, sb, sc] = done.attributes.steps;
  expect([sa, sb, sc].map((s) => s.state)).toEqual(["success", "success", "success"]);
  // Each started only once the one before it had finished.
  expect(Date.parse(sb.started_at ?? "")).toBeGreaterThanOrEqual(Date.parse(sa.finished_at ?? ""));
  expect(Date.parse(sc.started_at ?? "")).toBeGreaterThanOrEqual(Date.parse(sb.finished_at ?? ""));
  // The workspace-level run endpoint, by run id alone, agrees.
  for (const s of [sa, sb, sc]) {
    const run = (await ok(ws.viewer.get(`/api/v1/sync_runs/${s.sync_run_id}?wait=60`))).data;
    expect(run.attributes).toMatchObject({ sync_id: s.sync_id, status: "success", successful_rows: 20 });
  }
  expect(await sqlRows<{ n: number }>(`SELECT count(*)::int AS n FROM ${tc}`)).toEqual([{ n: 20 }]);
});

test("a failure in A starts neither B nor C, and the sequence run fails", async () => {
  const before = { b: await runsOf(b), c: await runsOf(c) };
  await sql(`ALTER TABLE ${src} RENAME TO ${src}_away`);
  try {
    const started = (await ok(ws.admin.post(`/api/v1/syncs/${a}/sequence_runs`), 201)).data as SequenceRun;
    const done = await settled(started.id);
    expect(done.attributes.status).toBe("failed");
    expect(done.attributes.steps.map((s) => s.state)).toEqual(["failed", "not_run", "not_run"]);
    expect(done.attributes.steps[2].reason).toBe(`upstream sync ${b} did not succeed`);
    expect({ b: await runsOf(b), c: await runsOf(c) }).toEqual(before);
  } finally {
    await sql(`ALTER TABLE ${src}_away RENAME TO ${src}`);
  }
});

test("a cycle, a sync after itself and another workspace's sync are refused with 422", async () => {
  const cycle = await expectError(await runAfter(ws.admin, a, [c]), 422, "validation_failed");
  expect(cycle.message).toMatch(new RegExp(`would make a cycle: sync ${a} "A_[0-9a-f]+" → sync ${b} "B_[0-9a-f]+" → sync ${c} "C_[0-9a-f]+" → sync ${a} "A_[0-9a-f]+"`));
  const self = await expectError(await runAfter(ws.admin, b, [a, b]), 422, "validation_failed");
  expect(self.message).toMatch(new RegExp(`sync ${b} "B_[0-9a-f]+" cannot run after itself`));
  // Another workspace's sync reads exactly like one that does not exist.
  const theirs = await expectError(await runAfter(ws.admin, a, [foreign]), 422, "validation_failed");
  const missing = await expectError(await runAfter(ws.admin, a, [2147483647]), 422, "validation_failed");
  expect(String(theirs.message).replace(String(foreign), "N")).toBe(String(missing.message).replace("2147483647", "N"));
  // Nothing changed.
  expect((await ok(ws.viewer.get(`/api/v1/syncs/${a}/run_after`))).data.attributes.sync_ids).toEqual([]);
  expect((await ok(ws.viewer.get(`/api/v1/syncs/${b}/run_after`))).data.attributes.sync_ids).toEqual([a]);
});

test("a Viewer may read but not set dependencies or start a sequence; another workspace gets 404", async () => {
  await expectError(await runAfter(ws.viewer, c, []), 403, "forbidden");
  await expectError(await ws.viewer.post(`/api/v1/syncs/${a}/sequence_runs`), 403, "forbidden");
  await expectError(await runAfter(other.admin, c, []), 404, "not_found");
  await expectError(await other.admin.get(`/api/v1/syncs/${c}/run_after`), 404, "not_found");
  await expectError(await other.admin.post(`/api/v1/syncs/${a}/sequence_runs`), 404, "not_found");
  const runs = (await ok(ws.viewer.get(`/api/v1/syncs/${a}/sync_runs`))).data as { id: string }[];
  await expectError(await other.admin.get(`/api/v1/sync_runs/${runs[0].id}?wait=60`), 404, "not_found");
  await expectError(await ws.viewer.get(`/api/v1/sync_runs/${runs[0].id}?wait=61`), 400, "bad_request");
  // The audit log has the change of dependencies.
  const logs = (await ok(ws.admin.get(`/api/v1/audit_logs?resource_type=sync&resource_id=${c}`))).data as { attributes: { action: string; metadata: { run_after?: number[] } } }[];
  expect(logs.some((l) => l.attributes.action === "update" && JSON.stringify(l.attributes.metadata.run_after) === JSON.stringify([b]))).toBe(true);
});

test("past LONG_POLL_MAX_PER_WORKSPACE (20) open waits, the workspace gets 429 with Retry-After", async () => {
  const ids = await connectors(ws.admin);
  // 1 s a row for 20 rows (the sleep reads the row, so it runs per row): the run stays unfinished
  // until it is canceled below.
  const slow = await newSync(ws.admin, ids, `SELECT id, email FROM ${src} CROSS JOIN LATERAL (SELECT pg_sleep(1 + id * 0)) AS s`, ta, "slow");
  const runId = (await ok(ws.admin.post("/api/v1/schedule_syncs", { schedule_sync: { sync_id: slow } }))).data.id as string;
  // A refused wait answers at once; a held one only when the run ends. Cancel only once all five
  // past the limit were refused, so that every one of the 25 has either been held or refused.
  let refusedCount = 0;
  let allRefused: () => void = () => {};
  const fiveRefused = new Promise<void>((resolve) => (allRefused = resolve));
  const waits = Array.from({ length: 25 }, async () => {
    const r = await ws.viewer.get(`/api/v1/sync_runs/${runId}?wait=30`);
    if (r.status() === 429 && ++refusedCount === 5) allRefused();
    return r;
  });
  const refused = await Promise.any(
    waits.map(async (w) => {
      const r = await w;
      if (r.status() !== 429) throw new Error(`answered ${r.status()}`);
      return r;
    }),
  );
  expect(refused.headers()["retry-after"]).toBe("5");
  expect((await refused.json()).message).toMatch(/already has 20 requests waiting with \?wait= \(at most 20 at once, LONG_POLL_MAX_PER_WORKSPACE\)/);
  await fiveRefused;
  // Canceling the run ends the open waits: the 20 held each answer 200 (the run), the 5 were refused.
  const cancel = await ws.admin.post(`/api/v1/syncs/${slow}/sync_runs/${runId}/cancel`);
  expect([200, 409]).toContain(cancel.status());
  const statuses = await Promise.all(waits.map(async (w) => (await w).status()));
  expect(statuses.filter((s) => s === 200).length).toBe(20);
  expect(statuses.filter((s) => s === 429).length).toBe(5);
  expect(statuses.every((s) => s === 200 || s === 429)).toBe(true);
});

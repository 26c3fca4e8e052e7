// Runs, records, manual trigger, cancel and test, against real runs of the engine (PostgreSQL → PostgreSQL).
import { expect, test } from "@playwright/test";
import { expectError } from "../support/api";
import {
  dataWorkspace,
  ensureTestDatabase,
  expectLinks,
  ISO,
  pgConfiguration,
  sql,
  unique,
  type DataWorkspace,
} from "../support/data";

let ws: DataWorkspace;
const src = unique("e2e_runs_src");
const dst = unique("e2e_runs_dst");
let sourceId: number;
let destinationId: number;
let fastModelId: number;
let slowModelId: number;

async function post(path: string, data: unknown, status = 201) {
  const res = await ws.admin.post(path, data);
  expect(res.status(), await res.text()).toBe(status);
  return res.json();
}

test.beforeAll(async () => {
  await ensureTestDatabase();
  await sql(`CREATE TABLE ${src} (id integer PRIMARY KEY, email text)`);
  await sql(`INSERT INTO ${src} SELECT g, 'u' || g || '@example.com' FROM generate_series(1, 30) g`);
  await sql(`CREATE TABLE ${dst} (id integer PRIMARY KEY, email text NOT NULL)`);
  ws = await dataWorkspace("runs");
  const connector = (type: string) => ({
    connector: {
      name: unique(type),
      connector_type: type,
      connector_name: "Postgresql",
      configuration: pgConfiguration(),
    },
  });
  sourceId = Number((await post("/api/v1/connectors", connector("source"))).data.id);
  destinationId = Number((await post("/api/v1/connectors", connector("destination"))).data.id);
  const discovered = await ws.admin.get(`/api/v1/connectors/${destinationId}/discover?refresh=true`);
  expect(discovered.status(), await discovered.text()).toBe(200);
  const model = (query: string) => ({
    model: { name: unique("m"), query, query_type: "raw_sql", primary_key: "id", connector_id: sourceId },
  });
  fastModelId = Number((await post("/api/v1/models", model(`SELECT id, email FROM ${src}`))).data.id);
  // Sleeps before returning rows, so a run stays active long enough to see "already running" and cancel it.
  slowModelId = Number(
    (
      await post(
        "/api/v1/models",
        model(`SELECT id, email FROM ${src} CROSS JOIN LATERAL (SELECT pg_sleep(0.2)) AS s`),
      )
    ).data.id,
  );
});
test.afterAll(async () => {
  await ws?.dispose();
  await sql(`DROP TABLE IF EXISTS ${src}`);
  await sql(`DROP TABLE IF EXISTS ${dst}`);
});

async function createSync(modelId: number, overrides: Record<string, unknown> = {}): Promise<string> {
  const res = await ws.admin.post("/api/v1/syncs", {
    sync: {
      name: unique("sync"),
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
      ...overrides,
    },
  });
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()).id;
}

async function waitForRun(syncId: string, runId: string, statuses = ["success", "failed", "canceled"]) {
  let attributes: Record<string, unknown> = {};
  await expect
    .poll(
      async () => {
        attributes = (await (await ws.viewer.get(`/api/v1/syncs/${syncId}/sync_runs/${runId}`)).json()).data
          .attributes;
        return String(attributes.status);
      },
      { timeout: 45_000, intervals: [250, 500, 1000] },
    )
    .toMatch(new RegExp(`^(${statuses.join("|")})$`));
  return attributes;
}

test("a manual run: trigger, list runs, show run, list records", async () => {
  const syncId = await createSync(fastModelId);
  const res = await ws.admin.post("/api/v1/schedule_syncs", { schedule_sync: { sync_id: Number(syncId) } });
  expect(res.status(), await res.text()).toBe(200);
  const triggered = await res.json();
  expect(typeof triggered.message).toBe("string");
  const runId = triggered.data.id as string;
  expect(typeof runId).toBe("string");

  const run = await waitForRun(syncId, runId);
  expect(run).toMatchObject({
    sync_id: Number(syncId),
    status: "success",
    sync_run_type: "general",
    total_query_rows: 30,
    successful_rows: 30,
    failed_rows: 0,
    error: null,
  });
  expect(run.started_at).toMatch(ISO);
  expect(run.finished_at).toMatch(ISO);
  expect(typeof run.duration).toBe("number");
  for (const key of ["total_rows", "skipped_rows", "duplicate_rows", "processed_rows"])
    expect(Number.isInteger(run[key])).toBe(true);

  const runs = await (await ws.viewer.get(`/api/v1/syncs/${syncId}/sync_runs`)).json();
  expectLinks(runs.links);
  expect(runs.data).toHaveLength(1);
  expect(runs.data[0]).toMatchObject({ id: runId, type: "sync_runs" });
  expect(
    (await (await ws.viewer.get(`/api/v1/syncs/${syncId}/sync_runs?status=failed`)).json()).data,
  ).toEqual([]);
  await expectError(await ws.viewer.get(`/api/v1/syncs/${syncId}/sync_runs?status=done`), 400, "bad_request");

  const sync = await (await ws.viewer.get(`/api/v1/syncs/${syncId}`)).json();
  expect(sync.attributes.status).toBe("healthy");
  expect(sync.attributes.last_run).toMatchObject({ id: Number(runId), status: "success" });

  const page1 = await ws.viewer.get(`/api/v1/syncs/${syncId}/sync_runs/${runId}/sync_records?per_page=10`);
  expect(page1.status()).toBe(200);
  const records = await page1.json();
  expectLinks(records.links);
  expect(records.links.next).toContain("page=2");
  expect(records.meta.total_count).toBe(30);
  expect(records.data).toHaveLength(10);
  const first = records.data[0];
  expect(typeof first.id).toBe("string");
  expect(first.type).toBe("sync_records");
  expect(first.attributes).toMatchObject({
    sync_id: Number(syncId),
    sync_run_id: Number(runId),
    status: "success",
    action: "destination_insert",
    error: null,
    record: { id: expect.any(Number), email: expect.any(String) },
  });
  expect(first.attributes.created_at).toMatch(ISO);
  expect(first.attributes.updated_at).toMatch(ISO);
  const ids = records.data.map((r: { id: string }) => BigInt(r.id));
  expect([...ids].sort((a, b) => (a < b ? -1 : 1))).toEqual(ids);

  const after = await (
    await ws.viewer.get(
      `/api/v1/syncs/${syncId}/sync_runs/${runId}/sync_records?per_page=10&after_id=${records.data[9].id}`,
    )
  ).json();
  expect(BigInt(after.data[0].id)).toBeGreaterThan(BigInt(records.data[9].id));
  expect(
    (
      await (
        await ws.viewer.get(`/api/v1/syncs/${syncId}/sync_runs/${runId}/sync_records?status=failed`)
      ).json()
    ).data,
  ).toEqual([]);
  expect(
    (
      await (
        await ws.viewer.get(
          `/api/v1/syncs/${syncId}/sync_runs/${runId}/sync_records?action=destination_insert&per_page=100`,
        )
      ).json()
    ).data,
  ).toHaveLength(30);
  await expectError(
    await ws.viewer.get(`/api/v1/syncs/${syncId}/sync_runs/${runId}/sync_records?status=ok`),
    400,
    "bad_request",
  );
  await expectError(
    await ws.viewer.get(`/api/v1/syncs/${syncId}/sync_runs/${runId}/sync_records?action=upsert`),
    400,
    "bad_request",
  );
});

test("records and runs 404 name the missing thing", async ({ request }) => {
  const syncId = await createSync(fastModelId);
  const missing = await expectError(
    await ws.viewer.get(`/api/v1/syncs/${syncId}/sync_runs/99999999/sync_records`),
    404,
    "not_found",
  );
  expect(missing.message).toContain("Sync run 99999999");
  await expectError(await ws.viewer.get(`/api/v1/syncs/${syncId}/sync_runs/99999999`), 404, "not_found");
  const noSync = await expectError(await ws.viewer.get("/api/v1/syncs/99999999/sync_runs"), 404, "not_found");
  expect(noSync.message).toContain("Sync 99999999");
  await expectError(await ws.viewer.get(`/api/v1/syncs/${syncId}/sync_runs/abc`), 400, "bad_request");
  await expectError(await request.get(`/api/v1/syncs/${syncId}/sync_runs`), 401, "unauthorized");
  const other = await dataWorkspace("runs-other", request);
  await expectError(await other.admin.get(`/api/v1/syncs/${syncId}/sync_runs`), 404, "not_found");
});

test("trigger while running is 424; cancel stops the run; cancel without a run is 424", async () => {
  const syncId = await createSync(slowModelId);
  const first = await ws.admin.post("/api/v1/schedule_syncs", { schedule_sync: { sync_id: Number(syncId) } });
  expect(first.status(), await first.text()).toBe(200);
  const runId = (await first.json()).data.id;
  const again = await expectError(
    await ws.admin.post("/api/v1/schedule_syncs", { schedule_sync: { sync_id: Number(syncId) } }),
    424,
    "failed_dependency",
  );
  expect(again.message).toContain("already running");

  const cancel = await ws.admin.delete(`/api/v1/schedule_syncs/${syncId}`);
  expect(cancel.status(), await cancel.text()).toBe(200);
  expect(typeof (await cancel.json()).message).toBe("string");
  // docs/architecture.md ("Run statuses"): a canceled run could not finish, so it ends failed with the reason in error.
  const run = await waitForRun(syncId, runId, ["failed"]);
  expect(run.finished_at).toMatch(ISO);
  expect(run.error).toMatch(/^Canceled before it finished/);

  const none = await expectError(
    await ws.admin.delete(`/api/v1/schedule_syncs/${syncId}`),
    424,
    "failed_dependency",
  );
  expect(none.message).toContain("no active run");
  await expectError(await ws.admin.delete("/api/v1/schedule_syncs/99999999"), 404, "not_found");
  await expectError(
    await ws.admin.post("/api/v1/schedule_syncs", { schedule_sync: {} }),
    422,
    "validation_failed",
  );
  await expectError(
    await ws.admin.post("/api/v1/schedule_syncs", { schedule_sync: { sync_id: 99999999 } }),
    404,
    "not_found",
  );
  await expectError(
    await ws.viewer.post("/api/v1/schedule_syncs", { schedule_sync: { sync_id: Number(syncId) } }),
    403,
    "forbidden",
  );
  await expectError(await ws.viewer.delete(`/api/v1/schedule_syncs/${syncId}`), 403, "forbidden");
});

test("disabled syncs cannot be triggered or tested (424)", async () => {
  const syncId = await createSync(fastModelId);
  expect((await ws.admin.patch(`/api/v1/syncs/${syncId}/enable`, { enable: false })).status()).toBe(200);
  const trigger = await expectError(
    await ws.admin.post("/api/v1/schedule_syncs", { schedule_sync: { sync_id: Number(syncId) } }),
    424,
    "failed_dependency",
  );
  expect(trigger.message).toContain("disabled");
  await expectError(await ws.admin.post(`/enterprise/api/v1/syncs/${syncId}/test`), 424, "failed_dependency");
});

test("POST /enterprise/api/v1/syncs/{id}/test starts a test run", async () => {
  const syncId = await createSync(fastModelId);
  const res = await ws.admin.post(`/enterprise/api/v1/syncs/${syncId}/test`);
  expect(res.status(), await res.text()).toBe(200);
  const started = await res.json();
  expect(started.message).toMatch(/^Test run \d+ queued: it sends one random row to the destination\.$/);
  expect(started.data).toMatchObject({ type: "sync_runs", attributes: { sync_run_type: "test" } });
  let runs: { id: string; attributes: Record<string, unknown> }[] = [];
  await expect
    .poll(
      async () => {
        runs = (await (await ws.viewer.get(`/api/v1/syncs/${syncId}/sync_runs?sync_run_type=test`)).json())
          .data;
        return runs[0]?.attributes.status;
      },
      { timeout: 45_000 },
    )
    .toBe("success");
  expect(runs[0].attributes).toMatchObject({ sync_run_type: "test", successful_rows: 1 });
  await expectError(await ws.admin.post("/enterprise/api/v1/syncs/99999999/test"), 404, "not_found");
  await expectError(await ws.viewer.post(`/enterprise/api/v1/syncs/${syncId}/test`), 403, "forbidden");
});

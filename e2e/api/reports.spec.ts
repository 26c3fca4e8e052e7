// GET /api/v1/reports over real HTTP: shape, buckets, validation and permission. (The counting
// itself is covered against PostgreSQL in lib/services/insights/reports.test.ts.)
import { expect, test } from "@playwright/test";
import { ISO_TIME, expectError, memberWithRole, newWorkspace, type TestWorkspace } from "../support/api";

let ws: TestWorkspace;
test.beforeAll(async ({ request }) => {
  ws = await newWorkspace(request, "Reports spec");
});

const point = {
  time_slice: expect.stringMatching(ISO_TIME),
  total_count: 0,
  success_count: 0,
  failed_count: 0,
};

test("workspace_activity defaults to both metrics over one week of daily buckets", async () => {
  const res = await ws.admin.get("/api/v1/reports?type=workspace_activity");
  expect(res.status(), await res.text()).toBe(200);
  const body = await res.json();
  expect(Object.keys(body)).toEqual(["data"]);
  expect(Object.keys(body.data).sort()).toEqual(["sync_run_triggered", "total_sync_run_rows"]);
  for (const series of Object.values(body.data) as { time_slice: string }[][]) {
    expect(series).toHaveLength(7);
    for (const p of series) expect(p).toEqual(point);
    expect(series[6].time_slice).toBe(`${new Date().toISOString().slice(0, 10)}T00:00:00.000Z`);
    expect(Date.parse(series[1].time_slice) - Date.parse(series[0].time_slice)).toBe(86_400_000);
  }
});

test("one_day gives 24 hourly buckets; a named metric gives only that series; connector filter accepted", async () => {
  const body = await (
    await ws.admin.get(
      "/api/v1/reports?type=workspace_activity&metric=total_sync_run_rows&time_period=one_day&connector_ids[]=1&connector_ids[]=2",
    )
  ).json();
  expect(Object.keys(body.data)).toEqual(["total_sync_run_rows"]);
  expect(body.data.total_sync_run_rows).toHaveLength(24);
  const [a, b] = body.data.total_sync_run_rows;
  expect(Date.parse(b.time_slice) - Date.parse(a.time_slice)).toBe(3_600_000);
  const single = await ws.admin.get(
    "/api/v1/reports?type=workspace_activity&metric=sync_run_triggered&connector_ids=5",
  );
  expect(single.status()).toBe(200);
});

test("bad parameters are 400 naming the allowed values", async () => {
  const noType = await expectError(await ws.admin.get("/api/v1/reports"), 400, "bad_request");
  // A missing parameter "is required"; the allowed values are still named.
  expect(noType.message).toMatch(/type: is required and must be one of: workspace_activity/);
  const metric = await expectError(
    await ws.admin.get("/api/v1/reports?type=workspace_activity&metric=rows"),
    400,
    "bad_request",
  );
  expect(metric.message).toMatch(/sync_run_triggered, total_sync_run_rows, all/);
  await expectError(
    await ws.admin.get("/api/v1/reports?type=workspace_activity&time_period=one_year"),
    400,
    "bad_request",
  );
  await expectError(
    await ws.admin.get("/api/v1/reports?type=workspace_activity&connector_ids[]=x"),
    400,
    "bad_request",
  );
});

test("Viewers may read reports", async ({ request }) => {
  const viewer = await memberWithRole(request, ws, "Viewer");
  expect((await viewer.api.get("/api/v1/reports?type=workspace_activity")).status()).toBe(200);
});

// Issue 35, point 3: a first run's progress rests on a count of the model's rows, not on the
// planner's guess. Models whose PostgreSQL estimate is off by far (stale statistics: 20,000 rows
// planned at ~400,000, 37 at ~50,000; a filter planned at 0.5% of 20,000 rows that keeps them all): the first run's
// estimated_rows is the exact count (estimate_source count), its percent rests on it, and the next
// run expects the previous run's count (previous_run). A Viewer reads the same fields.
import { expect, test } from "@playwright/test";
import { dataWorkspace, sql, type DataWorkspace } from "../support/data";
import { holdingDestination, type HoldingDestination } from "../support/holding-destination";
import { httpSync, plannerEstimate, staleStatistics, underestimated } from "../support/estimate-scenarios";
import { trigger, waitForRun } from "../support/run-scenarios";

let ws: DataWorkspace;
let destination: HoldingDestination;
const tables: string[] = [];

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  ws = await dataWorkspace("honest-estimates");
  destination = await holdingDestination();
});

test.afterAll(async () => {
  destination?.release();
  await destination?.close();
  await ws?.dispose();
  for (const table of tables) await sql(`DROP TABLE IF EXISTS ${table}`);
});

test("stale statistics (20,000 rows planned at ~400,000): the first run measures against its count of 20,000, mid-run and at the end; the next run expects the previous run's count", async () => {
  test.setTimeout(180_000);
  const { table, query } = await staleStatistics(20_000, 400_000);
  tables.push(table);
  // The scenario: the planner's guess is off by 20×.
  expect(await plannerEstimate(query)).toBeGreaterThan(200_000);
  const syncId = await httpSync(ws.admin, destination.url, query);

  destination.hold();
  const runId = await trigger(ws.admin, syncId);
  const mid = await waitForRun(ws.viewer, syncId, runId, (a) => destination.held() > 0 && Number(a.total_query_rows) >= 15_000 && a.progress.estimate_source !== null);
  expect(mid).toMatchObject({ status: "in_progress" });
  // A percentage of the count (75% or more), never of the planner's 400,000 (below 5%).
  expect(mid.progress).toMatchObject({ estimated_rows: 20_000, estimate_source: "count", more_than_rows: null });
  expect(Number(mid.progress.percent)).toBeGreaterThanOrEqual(75);
  expect(Number(mid.progress.percent)).toBeLessThan(100);
  destination.release();
  const first = await waitForRun(ws.viewer, syncId, runId);
  expect(first).toMatchObject({ status: "success", total_query_rows: 20_000 });
  expect(first.progress).toMatchObject({ rows_read: 20_000, estimated_rows: 20_000, estimate_source: "count", more_than_rows: null, percent: 100, eta_seconds: null });

  const second = await waitForRun(ws.viewer, syncId, await trigger(ws.admin, syncId));
  expect(second.progress).toMatchObject({ estimated_rows: 20_000, estimate_source: "previous_run", more_than_rows: null, percent: 100 });
});

test("stale statistics, small (37 rows planned at ~50,000): the count is 37 while the run runs", async () => {
  const { table, query } = await staleStatistics(37, 50_000);
  tables.push(table);
  expect(await plannerEstimate(query)).toBeGreaterThan(10_000);
  const syncId = await httpSync(ws.admin, destination.url, query);
  destination.hold();
  const runId = await trigger(ws.admin, syncId);
  // Its one read batch is held at the destination: nothing counted as read yet, 37 to go.
  const mid = await waitForRun(ws.viewer, syncId, runId, (a) => destination.held() > 0 && a.progress.estimate_source !== null);
  expect(mid.progress).toMatchObject({ estimated_rows: 37, estimate_source: "count", more_than_rows: null });
  destination.release();
  expect((await waitForRun(ws.viewer, syncId, runId)).progress).toMatchObject({ rows_read: 37, estimated_rows: 37, estimate_source: "count", percent: 100 });
});

test("a filter planned at 0.5% of its rows: the first run's total is the count of all 20,000, with a percent below 100 mid-run", async () => {
  const { table, query } = await underestimated(20_000);
  tables.push(table);
  expect(await plannerEstimate(query)).toBeLessThan(1_000);
  const syncId = await httpSync(ws.admin, destination.url, query);

  destination.hold();
  const runId = await trigger(ws.admin, syncId);
  const mid = await waitForRun(ws.viewer, syncId, runId, (a) => destination.held() > 0 && Number(a.total_query_rows) >= 15_000 && a.progress.estimate_source !== null);
  expect(mid.progress).toMatchObject({ estimated_rows: 20_000, estimate_source: "count", more_than_rows: null });
  expect(Number(mid.progress.percent)).toBeGreaterThanOrEqual(75);
  expect(Number(mid.progress.percent)).toBeLessThan(100);
  destination.release();
  const first = await waitForRun(ws.viewer, syncId, runId);
  expect(first).toMatchObject({ status: "success", total_query_rows: 20_000 });
  expect(first.progress).toMatchObject({ rows_read: 20_000, estimated_rows: 20_000, estimate_source: "count", percent: 100 });
});

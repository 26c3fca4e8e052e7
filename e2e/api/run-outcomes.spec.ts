// A run's progress, derived outcome and canceled_by over real runs (issue 20, points 1, 2 and 9):
// progress against an estimate fixed at the start (the source's count, then the previous run's),
// "succeeded with N rejected rows" beside status success, and a cancel that names who did it and
// leaves the sync's health as it was (named only to callers who may read members or the audit log).
// Status values stay the interface's.
import { expect, test } from "@playwright/test";
import { dataWorkspace, sql, type DataWorkspace } from "../support/data";
import { holdingDestination, type HoldingDestination } from "../support/holding-destination";
import { actorName, largeSourceSync, rejectingSync, syncAttributes, trigger, waitForRun } from "../support/run-scenarios";

let ws: DataWorkspace;
let destination: HoldingDestination;
const tables: string[] = [];

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  ws = await dataWorkspace("run-outcomes");
  destination = await holdingDestination();
});

test.afterAll(async () => {
  destination?.release();
  await destination?.close();
  await ws?.dispose();
  for (const table of tables) await sql(`DROP TABLE IF EXISTS ${table}`);
});

test("progress: the first run measures against the source's count, the next against the previous run's count, below 100% mid-run; a cancel names who did it and leaves the sync healthy", async () => {
  const { syncId, table, rows } = await largeSourceSync(ws.admin, destination.url);
  tables.push(table);

  const first = await waitForRun(ws.viewer, syncId, await trigger(ws.admin, syncId));
  expect(first).toMatchObject({ status: "success", outcome: "succeeded", canceled_by: null, total_query_rows: rows });
  // The source's count of the model's rows when the run started (honest-estimates.spec.ts: never the planner's guess).
  expect(first.progress).toMatchObject({ rows_read: rows, estimated_rows: rows, estimate_source: "count", more_than_rows: null, percent: 100, eta_seconds: null });
  expect(Number(first.progress.rows_per_second)).toBeGreaterThan(0);
  expect(Number(first.progress.rate_limit_wait_seconds)).toBeGreaterThanOrEqual(0);
  expect((await syncAttributes(ws.viewer, syncId)).status).toBe("healthy");

  // The second run holds at its last quarter of rows: observable mid-way for as long as needed.
  destination.hold();
  const runId = await trigger(ws.admin, syncId);
  const mid = await waitForRun(ws.viewer, syncId, runId, (a) => destination.held() > 0 && Number(a.total_query_rows) >= rows * 0.75);
  expect(mid).toMatchObject({ status: "in_progress", outcome: "running", canceled_by: null });
  expect(mid.progress).toMatchObject({ rows_read: rows * 0.75, estimated_rows: rows, estimate_source: "previous_run", percent: 75 });
  expect(Number(mid.progress.rows_per_second)).toBeGreaterThan(0);
  expect(Number(mid.progress.eta_seconds)).toBeGreaterThanOrEqual(0);

  const canceled = await ws.admin.delete(`/api/v1/schedule_syncs/${syncId}`);
  expect(canceled.status(), await canceled.text()).toBe(200);
  const who = await actorName(ws.admin);
  // Status stays the interface's (a run stopped mid-way ends failed); the outcome and who sit beside it.
  expect((await canceled.json()).data.attributes).toMatchObject({ status: "failed", outcome: "canceled", canceled_by: who });
  destination.release();
  const ended = await waitForRun(ws.admin, syncId, runId);
  expect(ended).toMatchObject({ status: "failed", outcome: "canceled", canceled_by: who });
  expect(Number(ended.progress.percent)).toBeLessThan(100);
  // A Viewer may not read the member list or the audit log: it sees that the run was canceled, not by whom.
  expect(await waitForRun(ws.viewer, syncId, runId)).toMatchObject({ status: "failed", outcome: "canceled", canceled_by: null });
  const seenByViewer = await syncAttributes(ws.viewer, syncId);
  expect(seenByViewer.last_outcome).toMatchObject({ outcome: "canceled", canceled_by: null });
  expect(JSON.stringify(seenByViewer)).not.toContain(who);

  const sync = await syncAttributes(ws.admin, syncId);
  expect(sync.status).toBe("healthy");
  expect(sync.last_run).toMatchObject({ id: Number(runId), status: "failed", outcome: "canceled", canceled_by: who });
  expect(sync.last_outcome).toMatchObject({ sync_run_id: Number(runId), status: "failed", outcome: "canceled", canceled_by: who });
});

test("a run whose destination refuses rows is a success with rejected rows: outcome beside status, on the run, the runs list and the sync", async () => {
  const { syncId, tables: created } = await rejectingSync(ws.admin, 20, 3);
  tables.push(...created);
  const runId = await trigger(ws.admin, syncId);
  const run = await waitForRun(ws.viewer, syncId, runId);
  expect(run).toMatchObject({ status: "success", outcome: "succeeded_with_rejections", failed_rows: 3, successful_rows: 17 });

  const list = await ws.viewer.get(`/api/v1/syncs/${syncId}/sync_runs`);
  expect(list.status()).toBe(200);
  expect((await list.json()).data[0].attributes).toMatchObject({ status: "success", outcome: "succeeded_with_rejections", failed_rows: 3 });

  const sync = await syncAttributes(ws.viewer, syncId);
  // The sync's status value stays as the interface has it; the outcome says what a person must know.
  expect(sync.status).toBe("healthy");
  expect(sync.last_outcome).toMatchObject({ sync_run_id: Number(runId), status: "success", outcome: "succeeded_with_rejections", failed_rows: 3 });
  const listed = await ws.viewer.get("/api/v1/syncs?per_page=100");
  const entry = ((await listed.json()).data as { id: string; attributes: Record<string, unknown> }[]).find((s) => Number(s.id) === syncId);
  expect(entry?.attributes.last_run).toMatchObject({ id: Number(runId), outcome: "succeeded_with_rejections", failed_rows: 3 });
});

test("disabling a sync while its run runs names who stopped the run", async () => {
  const { syncId, table } = await largeSourceSync(ws.admin, destination.url, 8_000);
  tables.push(table);
  destination.hold();
  const runId = await trigger(ws.admin, syncId);
  await waitForRun(ws.viewer, syncId, runId, () => destination.held() > 0);
  const disabled = await ws.admin.patch(`/api/v1/syncs/${syncId}/enable`, { enable: false });
  expect(disabled.status(), await disabled.text()).toBe(200);
  destination.release();
  const ended = await waitForRun(ws.admin, syncId, runId);
  // (Not how many rows it read: the held rows are the last quarter, so a loaded machine may have read
  // them all before the disable, with their requests still held.)
  expect(ended).toMatchObject({ status: "failed", outcome: "canceled", canceled_by: await actorName(ws.admin) });
});

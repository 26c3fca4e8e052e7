import { describe, expect, it } from "vitest";
import { prisma } from "@/lib/db/client";
import type { SyncRunStatus } from "@/lib/generated/prisma/client";
import { useTestDatabase } from "@/tests/support/db";
import { newWorkspace } from "@/tests/support/auth-fixtures";
import { bareSync } from "@/tests/support/sync-fixtures";
import { CANCELED_ERROR, DISABLED_ERROR } from "@/lib/sync-rules/run-outcome";
import { workspaceActivity } from "./reports";

useTestDatabase();

const NOW = new Date("2026-03-10T15:30:00.000Z");

async function run(
  workspaceId: number,
  syncId: number,
  at: string,
  status: SyncRunStatus,
  rows: [number, number, number],
  extra: { syncRunType?: "general" | "test"; canceledBy?: string; error?: string } = {},
) {
  await prisma().syncRun.create({
    data: {
      ...extra,
      workspaceId,
      syncId,
      status,
      createdAt: new Date(at),
      totalRows: rows[0],
      successfulRows: rows[1],
      failedRows: rows[2],
    },
  });
}

describe("workspace activity report", () => {
  it("fills 7 daily UTC buckets with run counts and row sums, scoped to the workspace", async () => {
    const ws = await newWorkspace();
    const { sync } = await bareSync(ws);
    await run(ws, sync.id, "2026-03-10T01:00:00Z", "success", [10, 9, 1]);
    await run(ws, sync.id, "2026-03-10T14:59:00Z", "failed", [5, 0, 5]);
    await run(ws, sync.id, "2026-03-04T00:00:00Z", "success", [3, 3, 0]);
    await run(ws, sync.id, "2026-03-03T23:59:59Z", "success", [100, 100, 0]); // before the window
    const foreign = await newWorkspace();
    const other = await bareSync(foreign);
    await run(foreign, other.sync.id, "2026-03-10T02:00:00Z", "success", [7, 7, 0]);

    const report = await workspaceActivity(
      ws,
      { type: "workspace_activity", metric: "all", time_period: "one_week" },
      NOW,
    );
    expect(report.sync_run_triggered).toHaveLength(7);
    expect(report.sync_run_triggered![0]).toEqual({
      time_slice: "2026-03-04T00:00:00.000Z",
      total_count: 1,
      success_count: 1,
      failed_count: 0,
    });
    expect(report.sync_run_triggered![6]).toEqual({
      time_slice: "2026-03-10T00:00:00.000Z",
      total_count: 2,
      success_count: 1,
      failed_count: 1,
    });
    expect(report.sync_run_triggered![3]).toEqual({
      time_slice: "2026-03-07T00:00:00.000Z",
      total_count: 0,
      success_count: 0,
      failed_count: 0,
    });
    expect(report.total_sync_run_rows![6]).toEqual({
      time_slice: "2026-03-10T00:00:00.000Z",
      total_count: 15,
      success_count: 9,
      failed_count: 6,
    });
  });

  it("gives 24 hourly buckets for one_day and one series when a metric is named", async () => {
    const ws = await newWorkspace();
    const { sync } = await bareSync(ws);
    await run(ws, sync.id, "2026-03-10T15:10:00Z", "success", [1, 1, 0]);
    await run(ws, sync.id, "2026-03-09T16:00:00Z", "success", [1, 1, 0]);
    await run(ws, sync.id, "2026-03-09T15:59:00Z", "success", [1, 1, 0]); // just outside
    const report = await workspaceActivity(
      ws,
      { type: "workspace_activity", metric: "sync_run_triggered", time_period: "one_day" },
      NOW,
    );
    expect(Object.keys(report)).toEqual(["sync_run_triggered"]);
    const points = report.sync_run_triggered!;
    expect(points).toHaveLength(24);
    expect(points[0]).toMatchObject({ time_slice: "2026-03-09T16:00:00.000Z", total_count: 1 });
    expect(points[23]).toMatchObject({ time_slice: "2026-03-10T15:00:00.000Z", total_count: 1 });
    expect(points.reduce((n, p) => n + p.total_count, 0)).toBe(2);
  });

  it("filters by connectors used as source or destination", async () => {
    const ws = await newWorkspace();
    const a = await bareSync(ws);
    const b = await bareSync(ws);
    await run(ws, a.sync.id, "2026-03-10T10:00:00Z", "success", [1, 1, 0]);
    await run(ws, b.sync.id, "2026-03-10T10:00:00Z", "success", [1, 1, 0]);
    const q = { type: "workspace_activity", metric: "sync_run_triggered", time_period: "one_week" } as const;
    const total = async (ids: number[]) =>
      (await workspaceActivity(ws, { ...q, connector_ids: ids }, NOW)).sync_run_triggered!.reduce(
        (n, p) => n + p.total_count,
        0,
      );
    expect(await total([a.source.id])).toBe(1);
    expect(await total([b.destination.id])).toBe(1);
    expect(await total([a.source.id, b.destination.id])).toBe(2);
    expect(await total([999_999])).toBe(0);
  });

  it("counts neither a cancel nor a test run as a failure (the runs' outcome, as every view shows it)", async () => {
    const ws = await newWorkspace();
    const { sync } = await bareSync(ws);
    const at = "2026-03-10T10:00:00Z";
    await run(ws, sync.id, at, "failed", [50, 20, 0], { canceledBy: "Ada", error: CANCELED_ERROR }); // canceled by Ada
    await run(ws, sync.id, at, "failed", [5, 0, 0], { error: CANCELED_ERROR }); // canceled before canceled_by existed
    await run(ws, sync.id, at, "failed", [5, 0, 0], { error: DISABLED_ERROR }); // stopped by a disable
    await run(ws, sync.id, at, "canceled", [0, 0, 0]); // never started
    await run(ws, sync.id, at, "failed", [1, 0, 1], { syncRunType: "test", error: "refused" }); // a failed test
    await run(ws, sync.id, at, "success", [1, 1, 0], { syncRunType: "test" });
    await run(ws, sync.id, at, "success", [30, 27, 3]); // succeeded with 3 rejected rows
    await run(ws, sync.id, at, "failed", [4, 0, 4], { error: "connection refused" }); // the one failure
    const report = await workspaceActivity(ws, { type: "workspace_activity", metric: "all", time_period: "one_week" }, NOW);
    expect(report.sync_run_triggered![6]).toEqual({ time_slice: "2026-03-10T00:00:00.000Z", total_count: 8, success_count: 1, failed_count: 1 });
    expect(report.total_sync_run_rows![6]).toEqual({ time_slice: "2026-03-10T00:00:00.000Z", total_count: 96, success_count: 48, failed_count: 7 });
  });
});

// The scrape's numbers from the runs in the database.
import { describe, expect, it } from "vitest";
import { prisma } from "@/lib/db/client";
import { newWorkspace } from "@/tests/support/auth-fixtures";
import { useTestDatabase } from "@/tests/support/db";
import { bareSync } from "@/tests/support/sync-fixtures";
import { metricsRegistry } from "./metrics";

useTestDatabase();

describe("metrics", () => {
  it("counts runs by status, sums their rows and wait, and buckets their durations", async () => {
    const workspaceId = await newWorkspace();
    const syncId = (await bareSync(workspaceId)).sync.id;
    const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
    const run = (status: "success" | "failed", ok: number, failed: number, seconds: number, wait: number) =>
      prisma().syncRun.create({
        data: { workspaceId, syncId, status, syncRunType: "general", successfulRows: ok, failedRows: failed, skippedRows: 1, startedAt: at(0), finishedAt: at(seconds), timings: { wait } },
      });
    await run("success", 10, 0, 3, 1500);
    await run("success", 5, 2, 20, 500);
    await run("failed", 0, 7, 4000, 0);
    const text = await metricsRegistry().metrics();
    expect(text).toContain('datasync_sync_runs{status="success"} 2');
    expect(text).toContain('datasync_sync_runs{status="failed"} 1');
    expect(text).toContain('datasync_rows_total{outcome="success"} 15');
    expect(text).toContain('datasync_rows_total{outcome="failed"} 9');
    expect(text).toContain('datasync_rows_total{outcome="skipped"} 3');
    expect(text).toContain("datasync_rate_limit_wait_seconds_total 2");
    // 3 s is in the 5 s bucket, 20 s in the 30 s one, 4000 s past the last bound.
    expect(text).toContain('datasync_sync_run_duration_seconds_bucket{le="1"} 0');
    expect(text).toContain('datasync_sync_run_duration_seconds_bucket{le="5"} 1');
    expect(text).toContain('datasync_sync_run_duration_seconds_bucket{le="30"} 2');
    expect(text).toContain('datasync_sync_run_duration_seconds_bucket{le="3600"} 2');
    expect(text).toContain('datasync_sync_run_duration_seconds_bucket{le="+Inf"} 3');
  });
});

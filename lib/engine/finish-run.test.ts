// A run canceled while its last batch was being written ends canceled, and its sync keeps its status;
// a run that ends on its own gives the sync its outcome with the same commit.
import { describe, expect, it } from "vitest";
import { pgPool, prisma } from "@/lib/db/client";
import { newWorkspace } from "@/tests/support/auth-fixtures";
import { useTestDatabase } from "@/tests/support/db";
import { bareSync } from "@/tests/support/sync-fixtures";
import { CANCELED_ERROR, finishRun, setRunStatus } from "./run-store";

useTestDatabase();

async function runningSync() {
  const { sync } = await bareSync(await newWorkspace());
  const run = await prisma().syncRun.create({ data: { workspaceId: sync.workspaceId, syncId: sync.id, status: "in_progress", startedAt: new Date() } });
  return { sync, run };
}

describe("finishRun", () => {
  it("leaves the sync's status alone when a cancel ended the run first", async () => {
    const { sync, run } = await runningSync();
    expect(sync.status).toBe("pending");
    // The cancel (POST …/cancel) lands; the worker, not yet aware of it, reports success.
    expect(await setRunStatus(pgPool(), run.id, "failed", { error: CANCELED_ERROR, finished: true, canceledBy: "Ada" })).toBe(true);
    expect(await finishRun(run.id, null, sync.id)).toBe(false);
    expect(await prisma().syncRun.findUniqueOrThrow({ where: { id: run.id } })).toMatchObject({ status: "failed", error: CANCELED_ERROR, canceledBy: "Ada" });
    expect((await prisma().sync.findUniqueOrThrow({ where: { id: sync.id } })).status).toBe("pending");
  });

  it("ends the run and moves the sync in one commit otherwise", async () => {
    const ok = await runningSync();
    expect(await finishRun(ok.run.id, null, ok.sync.id)).toBe(true);
    expect((await prisma().syncRun.findUniqueOrThrow({ where: { id: ok.run.id } })).status).toBe("success");
    expect((await prisma().sync.findUniqueOrThrow({ where: { id: ok.sync.id } })).status).toBe("healthy");
    const bad = await runningSync();
    expect(await finishRun(bad.run.id, "boom", bad.sync.id)).toBe(true);
    expect(await prisma().syncRun.findUniqueOrThrow({ where: { id: bad.run.id } })).toMatchObject({ status: "failed", error: "boom" });
    expect((await prisma().sync.findUniqueOrThrow({ where: { id: bad.sync.id } })).status).toBe("failed");
  });
});

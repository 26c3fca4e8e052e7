// A worker that dies between a run's success and the hook leaves the sequence's next syncs waiting;
// the scheduler's sweep runs the lost hook, once, and never for a success still in its grace time.
import { describe, expect, it } from "vitest";
import { prisma } from "@/lib/db/client";
import { newWorkspace } from "@/tests/support/auth-fixtures";
import { useTestDatabase } from "@/tests/support/db";
import { bareSync } from "@/tests/support/sync-fixtures";
import { sweepLostHooks } from "./advance";

useTestDatabase();

/** A → B in a sequence run whose step A succeeded `secondsAgo` and whose hook never ran. */
async function lostHook(secondsAgo: number) {
  const ws = await newWorkspace();
  const [a, b] = [(await bareSync(ws)).sync, (await bareSync(ws)).sync];
  await prisma().syncDependency.create({ data: { workspaceId: ws, syncId: b.id, upstreamSyncId: a.id } });
  const finishedAt = new Date(Date.now() - secondsAgo * 1000);
  const run = await prisma().syncRun.create({
    data: { workspaceId: ws, syncId: a.id, status: "success", startedAt: finishedAt, finishedAt, createdAt: new Date(finishedAt.getTime() - 1000) },
  });
  const sequence = await prisma().sequenceRun.create({
    data: {
      workspaceId: ws,
      syncId: a.id,
      steps: {
        create: [
          { syncId: a.id, upstreamSyncIds: [], state: "triggered", syncRunId: run.id },
          { syncId: b.id, upstreamSyncIds: [a.id] },
        ],
      },
    },
  });
  const runsOfB = () => prisma().syncRun.findMany({ where: { syncId: b.id } });
  const step = (syncId: number) => prisma().sequenceRunStep.findUniqueOrThrow({ where: { sequenceRunId_syncId: { sequenceRunId: sequence.id, syncId } } });
  return { a, b, run, runsOfB, step };
}

describe("sweepLostHooks", () => {
  it("starts the next sync of a sequence whose upstream's hook was lost, once", async () => {
    const { a, b, run, runsOfB, step } = await lostHook(120);
    expect(await sweepLostHooks()).toContain(run.id);
    const started = await runsOfB();
    expect(started).toHaveLength(1);
    expect(await step(b.id)).toMatchObject({ state: "triggered", syncRunId: started[0].id });
    expect((await step(a.id)).dependentsCheckedAt).not.toBeNull();
    // Swept once: the step is marked, and a second look would find B's run anyway.
    expect(await sweepLostHooks()).not.toContain(run.id);
    expect(await runsOfB()).toHaveLength(1);
  });

  it("leaves a success within its grace time to the hook", async () => {
    const { run, runsOfB } = await lostHook(5);
    expect(await sweepLostHooks()).not.toContain(run.id);
    expect(await runsOfB()).toHaveLength(0);
  });
});

// The run event bus on a real database: subscribers hear a status change inside its transaction, in
// the order they subscribed, with the run's ids, workspace, status and counts; one that throws loses
// its own writes only; work after the commit runs once the change is visible, and never after a rollback.
import { afterEach, beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import { pgPool, prisma } from "@/lib/db/client";
import { newWorkspace } from "@/tests/support/auth-fixtures";
import { useTestDatabase } from "@/tests/support/db";
import { bareSync } from "@/tests/support/sync-fixtures";
import { subscribe, type RunEvent, type RunEventName, type RunEvents } from "./events";
import { CANCELED_ERROR, claimRun, finishRun, setRunStatus } from "./run-store";
import { withTransaction } from "./transaction";

useTestDatabase();

const unsubscribe: Array<() => void> = [];
afterEach(() => {
  for (const off of unsubscribe.splice(0)) off();
});

beforeAll(async () => {
  await pgPool().query("CREATE TABLE bus_log (seq serial PRIMARY KEY, subscriber text NOT NULL, event text NOT NULL, run_id int NOT NULL)");
});

/** A subscriber that writes a log row with the event's transaction, then optionally throws. */
function logging(event: RunEventName, name: string, options: { fail?: boolean; heard?: RunEvent[] } = {}): void {
  unsubscribe.push(
    subscribe(event, name, async (e, { client }) => {
      options.heard?.push(e);
      await client.query("INSERT INTO bus_log (subscriber, event, run_id) VALUES ($1, $2, $3)", [name, event, e.runId]);
      if (options.fail) throw new Error(`${name} broke`);
    }),
  );
}

async function logOf(runId: number): Promise<string[]> {
  const { rows } = await pgPool().query<{ subscriber: string; event: string }>("SELECT subscriber, event FROM bus_log WHERE run_id = $1 ORDER BY seq", [runId]);
  return rows.map((r) => `${r.subscriber}:${r.event}`);
}

async function newRun(status: "queued" | "in_progress" = "in_progress", syncRunType: "general" | "test" = "general") {
  const { sync } = await bareSync(await newWorkspace());
  const run = await prisma().syncRun.create({
    data: { workspaceId: sync.workspaceId, syncId: sync.id, status, syncRunType, startedAt: status === "queued" ? null : new Date(), successfulRows: 7, failedRows: 2 },
  });
  return { sync, run };
}

describe("run event bus", () => {
  it("hands subscribers the run's ids, workspace, status and counts, in the order they subscribed", async () => {
    const heard: RunEvent[] = [];
    logging("run.succeeded", "first", { heard });
    logging("run.succeeded", "second");
    logging("run.failed", "not-me");
    const { sync, run } = await newRun();
    expect(await finishRun(run.id, null, sync.id)).toBe(true);
    expect(await logOf(run.id)).toEqual(["first:run.succeeded", "second:run.succeeded"]);
    expect(heard).toEqual([
      expect.objectContaining({
        runId: run.id,
        syncId: sync.id,
        workspaceId: sync.workspaceId,
        runType: "general",
        status: "success",
        outcome: "succeeded_with_rejections",
        counts: expect.objectContaining({ successfulRows: 7, failedRows: 2 }),
      }),
    ]);
    // The payloads are typed per event (a compile-time check).
    expectTypeOf<RunEvents["run.canceled"]["counts"]["failedRows"]>().toEqualTypeOf<number>();
    expectTypeOf<RunEvents["run.started"]["workspaceId"]>().toEqualTypeOf<number>();
  });

  it("a subscriber that throws loses its own writes only: the change and the other subscribers commit", async () => {
    logging("run.failed", "before");
    logging("run.failed", "broken", { fail: true });
    logging("run.failed", "after");
    const { run } = await newRun();
    expect(await setRunStatus(pgPool(), run.id, "failed", { error: "boom", finished: true })).toBe(true);
    expect((await prisma().syncRun.findUniqueOrThrow({ where: { id: run.id } })).status).toBe("failed");
    expect(await logOf(run.id)).toEqual(["before:run.failed", "after:run.failed"]);
  });

  it("tells a cancel from a failure, a first start from a resumed one", async () => {
    for (const event of ["run.canceled", "run.failed", "run.started"] as const) logging(event, "log");
    const canceled = await newRun();
    await setRunStatus(pgPool(), canceled.run.id, "failed", { error: CANCELED_ERROR, finished: true, canceledBy: "Ada" });
    expect(await logOf(canceled.run.id)).toEqual(["log:run.canceled"]);
    const queued = await newRun("queued");
    expect(await claimRun(queued.run.id)).not.toBeNull();
    await pgPool().query("UPDATE sync_runs SET status = 'queued' WHERE id = $1", [queued.run.id]);
    expect(await claimRun(queued.run.id)).not.toBeNull();
    expect(await logOf(queued.run.id)).toEqual(["log:run.started"]);
  });

  it("commits with the change: a rollback takes the subscribers' writes with it and runs no after-commit work", async () => {
    const after: number[] = [];
    unsubscribe.push(
      subscribe("run.failed", "queue", async (e, { client, afterCommit }) => {
        await client.query("INSERT INTO bus_log (subscriber, event, run_id) VALUES ('queue', 'run.failed', $1)", [e.runId]);
        await afterCommit(async () => {
          // Runs on another connection once the change is visible there.
          const { rows } = await pgPool().query<{ status: string }>("SELECT status FROM sync_runs WHERE id = $1", [e.runId]);
          after.push(rows[0].status === "failed" ? e.runId : -e.runId);
        });
      }),
    );
    const { run } = await newRun();
    await expect(
      withTransaction(pgPool(), async (client) => {
        expect(await setRunStatus(client, run.id, "failed", { error: "boom", finished: true })).toBe(true);
        throw new Error("the caller's transaction fails after the change");
      }),
    ).rejects.toThrow(/fails after/);
    expect((await prisma().syncRun.findUniqueOrThrow({ where: { id: run.id } })).status).toBe("in_progress");
    expect(await logOf(run.id)).toEqual([]);
    expect(after).toEqual([]);
    expect(await setRunStatus(pgPool(), run.id, "failed", { error: "boom", finished: true })).toBe(true);
    expect(await logOf(run.id)).toEqual(["queue:run.failed"]);
    expect(after).toEqual([run.id]);
  });

  it("an unsubscribed handler hears nothing more; a change nobody listens to publishes nothing", async () => {
    logging("run.succeeded", "gone");
    for (const off of unsubscribe.splice(0)) off();
    const { sync, run } = await newRun();
    expect(await finishRun(run.id, null, sync.id)).toBe(true);
    expect(await logOf(run.id)).toEqual([]);
  });
});

// Sequences against a real database: run_after refuses cycles and other workspaces' syncs and is
// audit-logged; a sequence A → B → C advances one success at a time through the engine's hook; a
// failure stops what follows; two upstreams succeeding at once start their dependent once; a
// disabled sync is skipped. Runs are ended by hand here (no worker): the hook is what is tested.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prisma } from "@/lib/db/client";
import { startDependents } from "@/lib/engine/sequences/advance";
import { stopBoss } from "@/lib/engine/queue";
import { ValidationFailed } from "@/lib/errors";
import type { SyncRunStatus } from "@/lib/generated/prisma/enums";
import { newMember } from "@/tests/support/auth-fixtures";
import { useTestDatabase } from "@/tests/support/db";
import { bareSync } from "@/tests/support/sync-fixtures";
import type { AuthContext } from "../accounts/auth-context";
import { getRunAfter, setRunAfter } from "./run-after";
import { getSequenceRun, startSequenceRun } from "./sequence-runs";
import { triggerSyncRun } from "./syncs";

useTestDatabase();

let auth: AuthContext;
let otherAuth: AuthContext;

beforeAll(async () => {
  auth = (await newMember("Admin")).auth;
  otherAuth = (await newMember("Admin")).auth;
});
afterAll(async () => {
  await stopBoss();
});

const newSync = async (a: AuthContext = auth) => (await bareSync(a.workspaceId)).sync.id;
const runAfter = (syncId: number, ids: number[], a: AuthContext = auth) => setRunAfter(a, syncId, { run_after: { sync_ids: ids } });

async function chain(n: number): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < n; i++) {
    ids.push(await newSync());
    await prisma().sync.update({ where: { id: ids[i] }, data: { name: `step ${"ABCDEFG"[i]} ${ids[i]}` } });
    if (i > 0) await runAfter(ids[i], [ids[i - 1]]);
  }
  return ids;
}

/** Ends a run as a worker would, then calls the hook as run-report.ts does. */
async function end(runId: number, status: SyncRunStatus & ("success" | "failed")) {
  await prisma().syncRun.update({ where: { id: runId }, data: { status, startedAt: new Date(Date.now() - 10), finishedAt: new Date() } });
  if (status === "success") await startDependents(runId);
}

async function stepRun(sequenceId: number, syncId: number): Promise<number> {
  const view = await getSequenceRun(auth.workspaceId, sequenceId);
  const runId = view.steps.find((s) => s.step.syncId === syncId)?.step.syncRunId;
  expect(runId, `a run for sync ${syncId}`).toBeTypeOf("number");
  return runId as number;
}

async function rejection(p: Promise<unknown>): Promise<ValidationFailed> {
  const err = await p.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(ValidationFailed);
  return err as ValidationFailed;
}

describe("run_after", () => {
  it("refuses a cycle, naming it, and a sync after itself", async () => {
    const [a, b, c] = await chain(3);
    const err = await rejection(runAfter(a, [c]));
    const name = (id: number, letter: string) => `sync ${id} "step ${letter} ${id}"`;
    expect(err.message).toBe(
      `Validation failed: run_after.sync_ids: would make a cycle: ${name(a, "A")} → ${name(b, "B")} → ${name(c, "C")} → ${name(a, "A")}; a sync cannot wait on a sync that waits on it`,
    );
    expect((await rejection(runAfter(b, [b]))).message).toBe(`Validation failed: run_after.sync_ids: ${name(b, "B")} cannot run after itself`);
    // Nothing changed.
    expect((await getRunAfter(auth.workspaceId, a)).upstreamIds).toEqual([]);
  });

  it("refuses another workspace's sync exactly like a missing one", async () => {
    const mine = await newSync();
    const theirs = await newSync(otherAuth);
    const foreign = await rejection(runAfter(mine, [theirs]));
    const missing = await rejection(runAfter(mine, [2_000_000]));
    expect(foreign.message).toBe(`Validation failed: run_after.sync_ids.0: sync ${theirs} was not found in this workspace`);
    expect(missing.message).toBe("Validation failed: run_after.sync_ids.0: sync 2000000 was not found in this workspace");
  });

  it("replaces the list, shows both directions and is audit-logged", async () => {
    const [a, b, c] = [await newSync(), await newSync(), await newSync()];
    await runAfter(c, [a, b, a]);
    expect(await getRunAfter(auth.workspaceId, c)).toEqual({ syncId: c, upstreamIds: [a, b].sort((x, y) => x - y), dependentIds: [] });
    expect((await getRunAfter(auth.workspaceId, a)).dependentIds).toEqual([c]);
    await runAfter(c, [b]);
    expect((await getRunAfter(auth.workspaceId, c)).upstreamIds).toEqual([b]);
    const logs = await prisma().auditLog.findMany({ where: { workspaceId: auth.workspaceId, resourceType: "sync", resourceId: String(c), action: "update" } });
    expect(logs.map((l) => (l.metadata as { run_after: number[] }).run_after)).toEqual(expect.arrayContaining([[a, b], [b]]));
  });
});

describe("sequence runs", () => {
  it("A → B → C: each starts only after the one before it succeeded", async () => {
    const [a, b, c] = await chain(3);
    const started = await startSequenceRun(auth, a);
    expect(started.status).toBe("running");
    expect(started.steps.map((s) => [s.step.syncId, s.progress.state])).toEqual([
      [a, "running"],
      [b, "waiting"],
      [c, "waiting"],
    ]);
    await end(await stepRun(started.sequence.id, a), "success");
    const runB = await stepRun(started.sequence.id, b);
    expect((await getSequenceRun(auth.workspaceId, started.sequence.id)).steps[2].step.syncRunId).toBeNull();
    await end(runB, "success");
    await end(await stepRun(started.sequence.id, c), "success");
    const done = await getSequenceRun(auth.workspaceId, started.sequence.id);
    expect(done.status).toBe("success");
    expect(done.finishedAt).not.toBeNull();
    // Each sync has exactly one run: nothing was started twice.
    for (const id of [a, b, c]) expect(await prisma().syncRun.count({ where: { syncId: id } })).toBe(1);
  });

  it("a failure in A starts neither B nor C, and the sequence fails", async () => {
    const [a, b, c] = await chain(3);
    const started = await startSequenceRun(auth, a);
    await end(await stepRun(started.sequence.id, a), "failed");
    const view = await getSequenceRun(auth.workspaceId, started.sequence.id);
    expect(view.status).toBe("failed");
    expect(view.steps.map((s) => s.progress.state)).toEqual(["failed", "not_run", "not_run"]);
    expect(await prisma().syncRun.count({ where: { syncId: { in: [b, c] } } })).toBe(0);
  });

  it("a run of A outside any sequence also starts B (the rule applies to every successful run)", async () => {
    const [a, b] = await chain(2);
    const run = await prisma().syncRun.create({ data: { workspaceId: auth.workspaceId, syncId: a, status: "in_progress", syncRunType: "general" } });
    await end(run.id, "success");
    expect(await prisma().syncRun.findMany({ where: { syncId: b }, select: { status: true } })).toEqual([{ status: "queued" }]);
    // The same success again starts nothing more: B was started after it.
    await startDependents(run.id);
    expect(await prisma().syncRun.count({ where: { syncId: b } })).toBe(1);
  });

  it("two upstreams succeeding at once start their dependent once", async () => {
    const [x, y, d] = [await newSync(), await newSync(), await newSync()];
    await runAfter(d, [x, y]);
    const runs = await Promise.all(
      [x, y].map((syncId) => prisma().syncRun.create({ data: { workspaceId: auth.workspaceId, syncId, status: "in_progress", syncRunType: "general" } })),
    );
    // Only x succeeded: d waits for y.
    await end(runs[0].id, "success");
    expect(await prisma().syncRun.count({ where: { syncId: d } })).toBe(0);
    await prisma().syncRun.update({ where: { id: runs[1].id }, data: { status: "success", finishedAt: new Date() } });
    await Promise.all([startDependents(runs[0].id), startDependents(runs[1].id), startDependents(runs[1].id)]);
    expect(await prisma().syncRun.count({ where: { syncId: d } })).toBe(1);
  });

  it("a disabled sync is skipped, with what follows only from it, and the sequence still succeeds", async () => {
    const [a, b, c] = await chain(3);
    await prisma().sync.update({ where: { id: b }, data: { status: "disabled" } });
    const started = await startSequenceRun(auth, a);
    await end(await stepRun(started.sequence.id, a), "success");
    const view = await getSequenceRun(auth.workspaceId, started.sequence.id);
    expect(view.steps.map((s) => [s.step.syncId, s.progress.state])).toEqual([
      [a, "success"],
      [b, "skipped"],
      [c, "skipped"],
    ]);
    expect(view.status).toBe("success");
    expect(await prisma().syncRun.count({ where: { syncId: { in: [b, c] } } })).toBe(0);
  });

  it("an Idempotency-Key makes a repeated start answer the same sequence run; a key of a plain run is a 422", async () => {
    const [a] = await chain(2);
    const first = await startSequenceRun(auth, a, "airflow-run-1");
    const again = await startSequenceRun(auth, a, "airflow-run-1");
    expect(again.sequence.id).toBe(first.sequence.id);
    expect(await prisma().sequenceRun.count({ where: { syncId: a } })).toBe(1);
    await end(await stepRun(first.sequence.id, a), "success");
    const plain = await newSync();
    await triggerSyncRun(auth, plain, "airflow-run-2");
    const err = await rejection(startSequenceRun(auth, plain, "airflow-run-2"));
    expect(err.message).toContain(`Idempotency-Key: was used in the last 24 hours to run sync ${plain} on its own`);
  });

  it("another workspace cannot see the sequence run", async () => {
    const a = await newSync();
    const started = await startSequenceRun(auth, a);
    await expect(getSequenceRun(otherAuth.workspaceId, started.sequence.id)).rejects.toThrow(/was not found/);
    await expect(startSequenceRun(otherAuth, a)).rejects.toThrow(/was not found/);
  });
});

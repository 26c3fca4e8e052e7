// waitForSyncRun long-polls a run: it answers as soon as the run settles, or with the run as it is
// when the wait is over; another workspace's run is a 404 at once.
import { beforeAll, describe, expect, it } from "vitest";
import { prisma } from "@/lib/db/client";
import { NotFound, RateLimited } from "@/lib/errors";
import { useTestDatabase } from "@/tests/support/db";
import { newWorkspace } from "@/tests/support/auth-fixtures";
import { bareSync } from "@/tests/support/sync-fixtures";
import { getSyncRunQuerySchema } from "@/lib/validation/sync-runs";
import { openLongPolls, openLongPollsOfUser } from "./long-poll";
import { waitForSyncRun, waitForWorkspaceSyncRun } from "./runs";

useTestDatabase();

let ws: number;
let otherWs: number;
let syncId: number;

/** The waiting user: the same one in every workspace unless told otherwise. */
const who = (workspaceId: number, userId = 1) => ({ workspaceId, userId });

async function newRun(status: "in_progress" | "success" = "in_progress") {
  return prisma().syncRun.create({ data: { workspaceId: ws, syncId, status, syncRunType: "general" } });
}

beforeAll(async () => {
  ws = await newWorkspace();
  otherWs = await newWorkspace();
  const connector = (type: "source" | "destination") =>
    prisma().connector.create({
      data: { workspaceId: ws, connectorType: type, connectorName: type === "source" ? "Postgresql" : "Http", name: `${type} ${ws}`, configurationEncrypted: "x" },
    });
  const source = await connector("source");
  const destination = await connector("destination");
  const model = await prisma().model.create({
    data: { workspaceId: ws, connectorId: source.id, name: "model", query: "select 1", primaryKey: "id" },
  });
  const sync = await prisma().sync.create({
    data: {
      workspaceId: ws,
      sourceId: source.id,
      destinationId: destination.id,
      modelId: model.id,
      configuration: [],
      scheduleType: "manual",
      syncMode: "full_refresh",
      streamName: "stream",
    },
  });
  syncId = sync.id;
});

describe("waitForSyncRun", () => {
  it("returns as soon as the run reaches a final status", async () => {
    const run = await newRun();
    // The wait is far longer than the test's timeout: only an early answer passes.
    const waiting = waitForSyncRun(who(ws), syncId, run.id, 60);
    await new Promise((r) => setTimeout(r, 300));
    await prisma().syncRun.update({ where: { id: run.id }, data: { status: "success" } });
    expect((await waiting).status).toBe("success");
  });

  it("answers the unfinished run when the wait is over", async () => {
    const run = await newRun();
    expect((await waitForSyncRun(who(ws), syncId, run.id, 1)).status).toBe("in_progress");
  });

  it("answers a settled run without waiting, and stops waiting when the client goes", async () => {
    const done = await newRun("success");
    expect((await waitForSyncRun(who(ws), syncId, done.id, 60)).status).toBe("success");
    const run = await newRun();
    const abort = new AbortController();
    const waiting = waitForSyncRun(who(ws), syncId, run.id, 60, abort.signal);
    setTimeout(() => abort.abort(), 100);
    expect((await waiting).status).toBe("in_progress");
  });

  it("is a 404 from another workspace, however long it is asked to wait", async () => {
    const run = await newRun();
    await expect(waitForSyncRun(who(otherWs), syncId, run.id, 60)).rejects.toBeInstanceOf(NotFound);
  });

  it("accepts waits from 0 to 60 seconds only", () => {
    for (const wait of ["0", "60", "15"]) expect(getSyncRunQuerySchema.safeParse({ wait }).success).toBe(true);
    for (const wait of ["-1", "61", "1.5", "abc", "", "1e1", "999"]) expect(getSyncRunQuerySchema.safeParse({ wait }).success).toBe(false);
  });
});

describe("waitForWorkspaceSyncRun", () => {
  it("waits on a run by its id alone, like the per-sync wait, and is a 404 from another workspace", async () => {
    const run = await newRun();
    const waiting = waitForWorkspaceSyncRun(who(ws), run.id, 60);
    await new Promise((r) => setTimeout(r, 300));
    await prisma().syncRun.update({ where: { id: run.id }, data: { status: "failed" } });
    expect((await waiting).status).toBe("failed");
    await expect(waitForWorkspaceSyncRun(who(otherWs), run.id, 60)).rejects.toBeInstanceOf(NotFound);
  });
});

describe("the long-poll cap", () => {
  it("answers 429 with Retry-After past LONG_POLL_MAX_PER_WORKSPACE open waits of a workspace, and frees slots as waits end", async () => {
    const before = process.env.LONG_POLL_MAX_PER_WORKSPACE;
    process.env.LONG_POLL_MAX_PER_WORKSPACE = "2";
    const run = await newRun();
    const abort = new AbortController();
    try {
      const open = [waitForSyncRun(who(ws), syncId, run.id, 60, abort.signal), waitForWorkspaceSyncRun(who(ws), run.id, 60, abort.signal)];
      // Each holds its slot once its first read has answered.
      while (openLongPolls(ws) < 2) await new Promise((r) => setTimeout(r, 20));
      const refused = await waitForWorkspaceSyncRun(who(ws), run.id, 60).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(RateLimited);
      expect((refused as RateLimited).headers?.["Retry-After"]).toBe("5");
      expect((refused as RateLimited).message).toMatch(/already has 2 requests waiting with \?wait= \(at most 2 at once, LONG_POLL_MAX_PER_WORKSPACE\)/);
      // A plain read takes no slot.
      expect((await waitForSyncRun(who(ws), syncId, run.id, 0)).status).toBe("in_progress");
      abort.abort();
      await Promise.all(open);
      // Both slots are free again: a new wait is held, not refused.
      expect((await waitForWorkspaceSyncRun(who(ws), run.id, 1)).status).toBe("in_progress");
    } finally {
      abort.abort();
      if (before === undefined) delete process.env.LONG_POLL_MAX_PER_WORKSPACE;
      else process.env.LONG_POLL_MAX_PER_WORKSPACE = before;
    }
  });

  it("also caps one user's waits across their workspaces (LONG_POLL_MAX_PER_USER), not another user's", async () => {
    const before = process.env.LONG_POLL_MAX_PER_USER;
    process.env.LONG_POLL_MAX_PER_USER = "2";
    const run = await newRun();
    const abort = new AbortController();
    const user = 4242;
    try {
      // Two waits of the user in this workspace; the other workspace's own cap is untouched.
      const open = [waitForSyncRun(who(ws, user), syncId, run.id, 60, abort.signal), waitForWorkspaceSyncRun(who(ws, user), run.id, 60, abort.signal)];
      while (openLongPollsOfUser(user) < 2) await new Promise((r) => setTimeout(r, 20));
      const otherSync = (await bareSync(otherWs)).sync;
      const otherRun = await prisma().syncRun.create({ data: { workspaceId: otherWs, syncId: otherSync.id, status: "in_progress", syncRunType: "general" } });
      const refused = await waitForWorkspaceSyncRun(who(otherWs, user), otherRun.id, 60).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(RateLimited);
      expect((refused as RateLimited).message).toMatch(/You already have 2 requests waiting with \?wait= across your workspaces \(at most 2 at once, LONG_POLL_MAX_PER_USER\)/);
      expect(openLongPolls(otherWs)).toBe(0);
      // Another user of the same workspace still waits.
      expect((await waitForWorkspaceSyncRun(who(ws, user + 1), run.id, 1)).status).toBe("in_progress");
      abort.abort();
      await Promise.all(open);
      expect(openLongPollsOfUser(user)).toBe(0);
    } finally {
      abort.abort();
      if (before === undefined) delete process.env.LONG_POLL_MAX_PER_USER;
      else process.env.LONG_POLL_MAX_PER_USER = before;
    }
  });
});

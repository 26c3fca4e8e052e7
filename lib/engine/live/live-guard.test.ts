// The blast-radius guard of a live sync's micro-batches, for real: a private wal_level=logical
// PostgreSQL streams a mirror-mode sync with the default limits (at most 20% of tracked rows deleted).
// A DELETE of half the table in one transaction holds the rolling run before anything of it is sent
// (the destination keeps every row, the position stays, the keeper starts nothing); approving sends
// exactly those deletes. Slices each under the limit add up across the rolling run and hold it at the
// slice that goes over; canceling ends it, and the keeper leaves it canceled.
import { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as approveRoute } from "@/app/api/v1/syncs/[id]/sync_runs/[run_id]/approve/route";
import { signToken } from "@/lib/auth/jwt";
import { liveSlotName, lsnValue } from "@/lib/connectors/live";
import { prisma } from "@/lib/db/client";
import { cancelRun, stopEngine, triggerSync } from "@/lib/engine";
import { executeRun } from "@/lib/engine/execute-run";
import { runRecords, sql, waitFor } from "@/lib/engine/test-support";
import { newMember } from "@/tests/support/auth-fixtures";
import { createScratchDatabase, useTestDatabase } from "@/tests/support/db";
import { createLiveSync, createLiveTable } from "@/tests/support/live-fixture";
import { useLogicalPostgres } from "@/tests/support/logical-postgres";
import { keepLiveSyncsGoing } from "./keeper";

useTestDatabase();
const logical = useLogicalPostgres("live_guard_source");
let destination: { url: string; drop(): Promise<void> };

beforeAll(async () => {
  process.env.ENGINE_STATUS_POLL_MS = "200";
  destination = await createScratchDatabase("ds_live_guard_dst");
  await createLiveTable(logical().url, "items", { rows: 100, label: "Item" });
});

afterAll(async () => {
  await stopEngine();
  await destination?.drop();
});

const destinationIds = async () => (await sql<{ id: number }>(destination.url, "SELECT id FROM items_guarded ORDER BY id")).map((r) => r.id);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const activeRuns = (syncId: number) => prisma().syncRun.count({ where: { syncId, status: { notIn: ["success", "failed", "canceled"] } } });

async function confirmedLsn(syncId: number): Promise<string | null> {
  const rows = await sql<{ lsn: string | null }>(logical().adminUrl, "SELECT confirmed_flush_lsn::text AS lsn FROM pg_replication_slots WHERE slot_name = $1", [liveSlotName(syncId)]);
  return rows[0]?.lsn ?? null;
}

/** POST …/sync_runs/{id}/approve as Next.js would call it, as a new member of `workspaceId` (else of a workspace of their own). */
async function approveAs(role: "Member" | "Viewer", f: { workspaceId: number; syncId: number }, runId: number, plannedAt: string, workspaceId?: number) {
  const m = await newMember(role, workspaceId);
  const { token } = await signToken({ userId: m.user.id, kind: "session" });
  const req = new NextRequest(`http://127.0.0.1/api/v1/syncs/${f.syncId}/sync_runs/${runId}/approve`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "workspace-id": String(m.workspaceId), "content-type": "application/json" },
    body: JSON.stringify({ planned_at: plannedAt }),
  });
  const res = await approveRoute(req, { params: Promise.resolve({ id: String(f.syncId), run_id: String(runId) }) });
  return { status: res.status, name: m.user.name };
}

/** The run streams: its progress row is its own (set once its backfill, if any, is recorded). */
async function streaming(syncId: number, runId: number): Promise<void> {
  await waitFor(async () => ((await prisma().liveProgress.findUnique({ where: { syncId } }))?.runId === runId ? true : undefined), 30_000, `run ${runId} streaming`);
}

describe("a live sync's micro-batches under the sync's limits", () => {
  it("holds a mass delete unsent and unacknowledged, sends it once approved; slices add up across the rolling run; a cancel ends it", { timeout: 180_000 }, async () => {
    process.env.ENGINE_LIVE_PERIOD_SECONDS = "60";
    const f = await createLiveSync({ sourceUrl: logical().url, sourceTable: "items", destinationUrl: destination.url, destinationTable: "items_guarded" });
    const run = await triggerSync(f.workspaceId, f.syncId);
    let execution = executeRun(run.id);
    await waitFor(async () => ((await destinationIds()).length === 100 ? true : undefined), 30_000, "the backfill");
    await streaming(f.syncId, run.id);
    const position = (await prisma().sync.findUniqueOrThrow({ where: { id: f.syncId } })).liveLsn;
    expect(position).not.toBeNull();

    // Half the table in one transaction: 50 of 100 tracked rows, over the default 20%.
    await sql(logical().url, "DELETE FROM items WHERE id <= 50");
    expect(await execution).toBe("needs_approval");
    const held = await prisma().syncRun.findUniqueOrThrow({ where: { id: run.id } });
    expect(held.status).toBe("needs_approval");
    expect(held.error).toBe(
      "Stopped before sending a micro-batch of 0 inserts, 0 updates and 50 deletes: with it, this rolling run would delete 50 of 100 tracked rows (50%), over the 20% limit. " +
        "Nothing of it was sent; the source keeps it in the slot. Approve the run to send it and go on streaming, or cancel it.",
    );
    const plan = held.plan as { planned_at: string; counts: Record<string, number>; tracked: number; exceeded: string[]; samples: { delete: { primary_key: string; payload: unknown }[] } };
    expect(plan.counts).toMatchObject({ insert: 0, update: 0, delete: 50 });
    expect(plan.tracked).toBe(100);
    expect(plan.exceeded).toEqual(["would delete 50 of 100 tracked rows (50%), over the 20% limit"]);
    expect(plan.samples.delete).toHaveLength(5);
    expect(plan.samples.delete[0]).toMatchObject({ payload: { id: plan.samples.delete[0].primary_key } });
    // Nothing deleted, nothing recorded, the position neither saved nor acknowledged.
    expect(await destinationIds()).toEqual(range(1, 100));
    const backfilled = await runRecords(run.id);
    expect(backfilled.filter((r) => r.action !== "destination_insert")).toEqual([]);
    expect((await prisma().sync.findUniqueOrThrow({ where: { id: f.syncId } })).liveLsn).toBe(position);
    expect(lsnValue((await confirmedLsn(f.syncId)) ?? "0/0")).toBeLessThanOrEqual(lsnValue(position as string));
    // Held, it is the sync's active run: the keeper starts nothing, now or an hour later.
    expect(await keepLiveSyncsGoing()).toBe(0);
    expect(await keepLiveSyncsGoing(new Date(Date.now() + 3_600_000))).toBe(0);
    expect(await activeRuns(f.syncId)).toBe(1);

    // The approve endpoint and permission of any held run: a Viewer may not, another workspace's member finds no such sync.
    expect((await approveAs("Viewer", f, run.id, plan.planned_at, f.workspaceId)).status).toBe(403);
    expect((await approveAs("Member", f, run.id, plan.planned_at)).status).toBe(404);
    expect((await prisma().syncRun.findUniqueOrThrow({ where: { id: run.id } })).status).toBe("needs_approval");

    // Approved by a Member: the same run goes on from the slot and sends exactly the held deletes.
    process.env.ENGINE_LIVE_PERIOD_SECONDS = "5";
    const approver = await approveAs("Member", f, run.id, plan.planned_at, f.workspaceId);
    expect(approver.status).toBe(200);
    execution = executeRun(run.id);
    await waitFor(async () => ((await destinationIds()).length === 50 ? true : undefined), 30_000, "the approved deletes");
    expect(await execution).toBe("success");
    expect(await destinationIds()).toEqual(range(51, 100));
    const approved = await prisma().syncRun.findUniqueOrThrow({ where: { id: run.id } });
    expect(approved).toMatchObject({ status: "success", approvedBy: approver.name, failedRows: 0 });
    const records = await runRecords(run.id);
    const deletes = records.filter((r) => r.action === "destination_delete");
    expect(deletes.map((r) => Number(r.primaryKey)).sort((a, b) => a - b)).toEqual(range(1, 50));
    expect(deletes.every((r) => r.status === "success")).toBe(true);
    expect(records.filter((r) => r.action === "destination_insert")).toHaveLength(100);
    expect(records).toHaveLength(150);

    // The next rolling run: 50 tracked; slices of 4 deletes (8% each) go until the third (24% in all).
    process.env.ENGINE_LIVE_PERIOD_SECONDS = "60";
    const next = await prisma().syncRun.findFirstOrThrow({ where: { syncId: f.syncId, id: { gt: run.id } } });
    const second = executeRun(next.id);
    await streaming(f.syncId, next.id);
    await sql(logical().url, "DELETE FROM items WHERE id BETWEEN 51 AND 54");
    await waitFor(async () => ((await destinationIds()).length === 46 ? true : undefined), 30_000, "the first slice");
    await sql(logical().url, "DELETE FROM items WHERE id BETWEEN 55 AND 58");
    await waitFor(async () => ((await destinationIds()).length === 42 ? true : undefined), 30_000, "the second slice");
    await sql(logical().url, "DELETE FROM items WHERE id BETWEEN 59 AND 62");
    expect(await second).toBe("needs_approval");
    const heldAgain = await prisma().syncRun.findUniqueOrThrow({ where: { id: next.id } });
    expect(heldAgain.error).toContain(
      "a micro-batch of 0 inserts, 0 updates and 4 deletes: with it, this rolling run, with the 0 updates and 8 deletes it already sent, would delete 12 of 50 tracked rows (24%), over the 20% limit.",
    );
    expect(await destinationIds()).toEqual(range(59, 100));

    // Canceled: it ends, the held slice is not sent, and the keeper does not start the sync again.
    await cancelRun(f.workspaceId, f.syncId, next.id, "ada@example.com");
    expect(await keepLiveSyncsGoing(new Date(Date.now() + 3_600_000))).toBe(0);
    expect(await activeRuns(f.syncId)).toBe(0);
    expect(await destinationIds()).toEqual(range(59, 100));
    const sliced = await runRecords(next.id);
    expect(sliced.map((r) => [r.primaryKey, r.action])).toEqual(range(51, 58).map((k) => [String(k), "destination_delete"]));
  });
});

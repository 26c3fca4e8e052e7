// listSyncRecords reads the run and its page in one SQL statement; these tests hold it to what
// Prisma says about the same records, and to the 404s and totals of the API contract. The runs of
// a sync (listSyncRuns, getSyncRun) check the sync in the same query; their 404s are here too.
import { beforeAll, describe, expect, it } from "vitest";
import { prisma } from "@/lib/db/client";
import { NotFound } from "@/lib/errors";
import type { Prisma, SyncRecordAction, SyncRecordStatus, SyncRun } from "@/lib/generated/prisma/client";
import { parsePage } from "@/lib/http/pagination";
import type { ListSyncRecordsQuery } from "@/lib/validation/sync-records";
import { useTestDatabase } from "@/tests/support/db";
import { newWorkspace } from "@/tests/support/auth-fixtures";
import { bareSync } from "@/tests/support/sync-fixtures";
import { listSyncRecords } from "./sync-records";
import { getSyncRun, listSyncRuns } from "./sync-runs";

useTestDatabase();

const STATUSES: SyncRecordStatus[] = ["success", "success", "failed", "pending"];
const ACTIONS: SyncRecordAction[] = ["destination_insert", "destination_update", "destination_delete"];

/** A run with `n` records; finished runs carry exact counters like the engine writes them. */
async function runWith(workspaceId: number, syncId: number, n: number, finished: boolean): Promise<SyncRun> {
  const statuses = Array.from({ length: n }, (_, i) => STATUSES[i % STATUSES.length]);
  const run = await prisma().syncRun.create({
    data: {
      workspaceId,
      syncId,
      status: finished ? "success" : "in_progress",
      startedAt: new Date(),
      finishedAt: finished ? new Date() : null,
      totalRows: n,
      successfulRows: statuses.filter((s) => s === "success").length,
      failedRows: statuses.filter((s) => s === "failed").length,
    },
  });
  await prisma().syncRecord.createMany({
    data: statuses.map((status, i) => ({
      syncId,
      syncRunId: run.id,
      primaryKey: String(i),
      record: { id: i, name: `row ${i}`, nested: { ok: i % 2 === 0 } },
      status,
      action: ACTIONS[i % ACTIONS.length],
      error: status === "failed" ? `failed ${i}` : null,
      logs: status === "failed" ? { level: "error", response: { status: 500 } } : undefined,
    })),
  });
  return run;
}

let ws: number;
let syncId: number;
let finished: SyncRun;
let running: SyncRun;

beforeAll(async () => {
  ws = await newWorkspace();
  syncId = (await bareSync(ws)).sync.id;
  finished = await runWith(ws, syncId, 40, true);
  running = await runWith(ws, syncId, 13, false);
});

async function reference(runId: number, filter: ListSyncRecordsQuery, skip: number, take: number) {
  const where: Prisma.SyncRecordWhereInput = {
    syncRunId: runId,
    ...(filter.status ? { status: filter.status } : {}),
    ...(filter.action ? { action: filter.action } : {}),
  };
  const rows = await prisma().syncRecord.findMany({
    where: filter.after_id !== undefined ? { ...where, id: { gt: filter.after_id } } : where,
    orderBy: { id: "asc" },
    skip: filter.after_id !== undefined ? 0 : skip,
    take,
  });
  return { rows, total: await prisma().syncRecord.count({ where }), writeTarget: null };
}

describe("listSyncRecords", () => {
  it("pages, filters and totals like Prisma, for finished and running runs", async () => {
    const filters: ListSyncRecordsQuery[] = [
      {},
      { status: "success" },
      { status: "failed" },
      { status: "pending" },
      { action: "destination_update" },
      { status: "success", action: "destination_insert" },
    ];
    for (const run of [finished, running]) {
      for (const filter of filters) {
        for (const query of ["", "page=2&per_page=7", "page=99"]) {
          const page = parsePage(new URLSearchParams(query));
          const got = await listSyncRecords(ws, syncId, run.id, filter, page);
          expect(got, `${run.status} ${JSON.stringify(filter)} ${query}`).toEqual(
            await reference(run.id, filter, page.skip, page.take),
          );
        }
      }
    }
  });

  it("keyset pages with after_id", async () => {
    const page = parsePage(new URLSearchParams("page=3&per_page=5"));
    const all = await listSyncRecords(
      ws,
      syncId,
      finished.id,
      {},
      parsePage(new URLSearchParams("per_page=100")),
    );
    const afterId = all.rows[9].id;
    const got = await listSyncRecords(
      ws,
      syncId,
      finished.id,
      { after_id: afterId, status: "success" },
      page,
    );
    expect(got).toEqual(
      await reference(finished.id, { after_id: afterId, status: "success" }, page.skip, page.take),
    );
    expect(got.rows.every((r) => r.id > afterId)).toBe(true);
  });

  it("returns the records' own values: ids as bigint, JSON as stored, logs of failures", async () => {
    const { rows } = await listSyncRecords(
      ws,
      syncId,
      finished.id,
      { status: "failed" },
      parsePage(new URLSearchParams()),
    );
    expect(typeof rows[0].id).toBe("bigint");
    expect(rows[0]).toMatchObject({
      syncId,
      syncRunId: finished.id,
      record: { nested: { ok: true } },
      logs: { level: "error" },
    });
    expect(rows[0].error).toMatch(/^failed /);
  });

  it("404 names the sync when the sync is missing, deleted or another workspace's, else the run", async () => {
    const page = parsePage(new URLSearchParams());
    await expect(listSyncRecords(ws, syncId, 2_000_000_000, {}, page)).rejects.toThrow(
      new NotFound(`Sync run 2000000000 of sync ${syncId} was not found.`),
    );
    const other = (await bareSync(ws)).sync;
    await expect(listSyncRecords(ws, other.id, finished.id, {}, page)).rejects.toThrow(
      new NotFound(`Sync run ${finished.id} of sync ${other.id} was not found.`),
    );
    const foreign = await newWorkspace();
    await expect(listSyncRecords(foreign, syncId, finished.id, {}, page)).rejects.toThrow(
      new NotFound(`Sync ${syncId} was not found.`),
    );
    await prisma().sync.update({ where: { id: other.id }, data: { deletedAt: new Date() } });
    const deletedRun = await runWith(ws, other.id, 2, true);
    await expect(listSyncRecords(ws, other.id, deletedRun.id, {}, page)).rejects.toThrow(
      new NotFound(`Sync ${other.id} was not found.`),
    );
  });
});

describe("listSyncRuns and getSyncRun", () => {
  it("list the sync's runs newest first with filters; a sync without runs is an empty list", async () => {
    const page = parsePage(new URLSearchParams());
    const { rows, total } = await listSyncRuns(ws, syncId, {}, page);
    expect(total).toBe(2);
    expect(rows.map((r) => r.id)).toEqual([running.id, finished.id]);
    expect(await listSyncRuns(ws, syncId, { status: "success" }, page)).toMatchObject({
      total: 1,
      rows: [{ id: finished.id }],
    });
    expect(await listSyncRuns(ws, syncId, { sync_run_type: "test" }, page)).toEqual({ rows: [], total: 0 });
    const empty = (await bareSync(ws)).sync;
    expect(await listSyncRuns(ws, empty.id, {}, page)).toEqual({ rows: [], total: 0 });
    expect(await getSyncRun(ws, syncId, finished.id)).toEqual(
      await prisma().syncRun.findUnique({ where: { id: finished.id } }),
    );
  });

  it("404 for a deleted, unknown or another workspace's sync, and for another sync's run", async () => {
    const page = parsePage(new URLSearchParams());
    const foreign = await newWorkspace();
    await expect(listSyncRuns(foreign, syncId, {}, page)).rejects.toThrow(
      new NotFound(`Sync ${syncId} was not found.`),
    );
    await expect(getSyncRun(foreign, syncId, finished.id)).rejects.toThrow(
      new NotFound(`Sync ${syncId} was not found.`),
    );
    const other = (await bareSync(ws)).sync;
    await expect(getSyncRun(ws, other.id, finished.id)).rejects.toThrow(
      new NotFound(`Sync run ${finished.id} of sync ${other.id} was not found.`),
    );
    await runWith(ws, other.id, 1, true);
    await prisma().sync.update({ where: { id: other.id }, data: { deletedAt: new Date() } });
    await expect(listSyncRuns(ws, other.id, {}, page)).rejects.toThrow(
      new NotFound(`Sync ${other.id} was not found.`),
    );
    await expect(listSyncRuns(ws, 2_000_000_000, {}, page)).rejects.toBeInstanceOf(NotFound);
  });
});

// listSyncRecords pages through a run's record blocks (lib/records); these tests hold it to a plain
// filter over every record of the run, and to the 404s and totals of the API contract. The runs of
// a sync (listSyncRuns, getSyncRun) check the sync in the same query; their 404s are here too.
import { beforeAll, describe, expect, it } from "vitest";
import { prisma } from "@/lib/db/client";
import { NotFound } from "@/lib/errors";
import type { SyncRecordAction, SyncRun } from "@/lib/generated/prisma/client";
import { parsePage } from "@/lib/http/pagination";
import type { ListSyncRecordsQuery } from "@/lib/validation/sync-records";
import { useTestDatabase } from "@/tests/support/db";
import { newWorkspace } from "@/tests/support/auth-fixtures";
import { allRecords, seedRecords, type SeedRecord } from "@/tests/support/record-blocks";
import { bareSync } from "@/tests/support/sync-fixtures";
import { listSyncRecords } from "./records";
import { getSyncRun, listSyncRuns } from "./runs";

useTestDatabase();

const OUTCOMES: SeedRecord["outcome"][] = ["success", "success", "failed", "skipped", "delivered"];
const ACTIONS: SyncRecordAction[] = ["destination_insert", "destination_update", "destination_delete"];
/** Keys that need the key line's escape (a newline, a leading double quote), among plain ones. */
const keyOf = (i: number) => (i % 11 === 5 ? `"quoted ${i}` : i % 11 === 7 ? `two\nlines ${i}` : String(i));

/** A run with `n` records written by the engine's writer, `batch` a recorded batch; finished or not. */
async function runWith(workspaceId: number, syncId: number, n: number, finished: boolean, batch = 7): Promise<SyncRun> {
  const records: SeedRecord[] = Array.from({ length: n }, (_, i) => {
    const outcome = OUTCOMES[i % OUTCOMES.length];
    return {
      key: keyOf(i),
      record: i % 13 === 4 ? undefined : { id: i, name: `row ${i}`, nested: { ok: i % 2 === 0 } },
      outcome,
      action: ACTIONS[i % ACTIONS.length],
      error: outcome === "failed" ? `failed ${i}` : outcome === "delivered" ? "Already delivered with idempotency key x" : undefined,
      log: outcome === "failed" ? { request: { line: "insert" }, response: { line: `HTTP 500 ${i}` }, level: "error" } : undefined,
    };
  });
  const run = await prisma().syncRun.create({
    data: {
      workspaceId,
      syncId,
      status: finished ? "success" : "in_progress",
      startedAt: new Date(),
      finishedAt: finished ? new Date() : null,
      totalRows: n,
      successfulRows: records.filter((r) => r.outcome === "success" || r.outcome === "delivered").length,
      failedRows: records.filter((r) => r.outcome === "failed").length,
    },
  });
  await seedRecords(syncId, run.id, records, batch);
  return run;
}

let ws: number;
let syncId: number;
let finished: SyncRun;
let running: SyncRun;
let large: SyncRun;
let largeSyncId: number;

beforeAll(async () => {
  ws = await newWorkspace();
  syncId = (await bareSync(ws)).sync.id;
  finished = await runWith(ws, syncId, 40, true);
  running = await runWith(ws, syncId, 13, false);
  // Batches larger than a block: blocks of 1000 and of the rest.
  largeSyncId = (await bareSync(ws)).sync.id;
  large = await runWith(ws, largeSyncId, 2600, true, 1300);
});

/** The same page by brute force: every record of the run, filtered and sliced. */
async function reference(runId: number, filter: ListSyncRecordsQuery, skip: number, take: number) {
  const matching = (await allRecords(runId)).filter(
    (r) =>
      (!filter.status || r.status === filter.status) &&
      (!filter.action || r.action === filter.action) &&
      (filter.primary_key === undefined || r.primaryKey === filter.primary_key),
  );
  const after = filter.after_id;
  const rows = after !== undefined ? matching.filter((r) => r.id > after).slice(0, take) : matching.slice(skip, skip + take);
  return { rows, total: matching.length, writeTarget: null };
}

describe("listSyncRecords", () => {
  it("pages, filters and totals like a plain filter over every record, for finished, running and large runs", async () => {
    const filters: ListSyncRecordsQuery[] = [
      {},
      { status: "success" },
      { status: "failed" },
      { status: "skipped" },
      { status: "pending" },
      { action: "destination_update" },
      { status: "success", action: "destination_insert" },
      { primary_key: "12" },
      { primary_key: keyOf(16) },
      { primary_key: keyOf(18) },
      { primary_key: "12", status: "failed" },
      { primary_key: "no such key" },
    ];
    for (const [run, sync] of [[finished, syncId], [running, syncId], [large, largeSyncId]] as const) {
      for (const filter of filters) {
        for (const query of ["", "page=2&per_page=7", "page=99", "page=3&per_page=100", "page=11&per_page=100"]) {
          const page = parsePage(new URLSearchParams(query));
          const got = await listSyncRecords(ws, sync, run.id, filter, page);
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

  it("keyset pages across blocks, with and without filters", async () => {
    const all = await allRecords(large.id);
    for (const at of [0, 998, 999, 1000, 1299, 1300, 2599]) {
      for (const filter of [{}, { status: "failed" as const }, { action: "destination_delete" as const }]) {
        const query = { ...filter, after_id: all[at].id };
        const page = parsePage(new URLSearchParams("per_page=50"));
        expect(await listSyncRecords(ws, largeSyncId, large.id, query, page), `${at} ${JSON.stringify(filter)}`).toEqual(
          await reference(large.id, query, page.skip, page.take),
        );
      }
    }
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
      logs: { level: "error", response: { line: "HTTP 500 2" } },
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

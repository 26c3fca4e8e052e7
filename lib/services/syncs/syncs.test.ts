// listSyncs and getSync read syncs with their summaries in one SQL statement; these tests hold them
// to what Prisma's own queries say about the same rows (order, filters, pages, latest run).
import { beforeAll, describe, expect, it } from "vitest";
import { prisma } from "@/lib/db/client";
import { NotFound } from "@/lib/errors";
import type { Prisma, SyncStatus } from "@/lib/generated/prisma/client";
import { parsePage } from "@/lib/http/pagination";
import { DEFAULT_SORT, type SortOrder } from "@/lib/validation/sort";
import { listSyncsQuerySchema, type ListSyncsQuery } from "@/lib/validation/syncs";
import { useTestDatabase } from "@/tests/support/db";
import { newWorkspace } from "@/tests/support/auth-fixtures";
import { getSync, listSyncs, type SyncView } from "./syncs";

useTestDatabase();

const STATUSES: SyncStatus[] = ["pending", "healthy", "failed", "disabled", "aborted"];
const T0 = Date.parse("2026-01-01T00:00:00.000Z");

async function connectorsIn(workspaceId: number) {
  const connector = (type: "source" | "destination", name: string) =>
    prisma().connector.create({
      data: {
        workspaceId,
        connectorType: type,
        connectorName: type === "source" ? "Postgresql" : "Http",
        name,
        configurationEncrypted: "x",
      },
    });
  const source = await connector("source", `source ${workspaceId}`);
  const otherSource = await connector("source", `other source ${workspaceId}`);
  const destination = await connector("destination", `destination ${workspaceId}`);
  const model = await prisma().model.create({
    data: { workspaceId, connectorId: source.id, name: "model", query: "select 1", primaryKey: "id" },
  });
  const otherModel = await prisma().model.create({
    data: {
      workspaceId,
      connectorId: otherSource.id,
      name: "other model",
      query: "select 2",
      primaryKey: "id",
    },
  });
  return { source, otherSource, destination, model, otherModel };
}

let ws: number;
let foreignSyncId: number;
let deletedSyncId: number;
let refs: Awaited<ReturnType<typeof connectorsIn>>;

beforeAll(async () => {
  ws = await newWorkspace();
  refs = await connectorsIn(ws);
  for (let i = 0; i < 23; i++) {
    const other = i % 4 === 0;
    const sync = await prisma().sync.create({
      data: {
        workspaceId: ws,
        sourceId: other ? refs.otherSource.id : refs.source.id,
        modelId: other ? refs.otherModel.id : refs.model.id,
        destinationId: refs.destination.id,
        // Repeated names and timestamps: ties must be broken by id like Prisma's order does.
        name: `sync ${String(i % 7).padStart(2, "0")}`,
        description: i === 3 ? "has a description" : "",
        configuration: [{ from: "id", to: `id_${i}`, mapping_type: "standard" }],
        scheduleType: i % 3 === 0 ? "interval" : "manual",
        syncInterval: i % 3 === 0 ? i + 1 : null,
        syncIntervalUnit: i % 3 === 0 ? "hours" : null,
        syncMode: i % 2 ? "incremental" : "full_refresh",
        cursorField: i % 2 ? "updated_at" : null,
        currentCursorField: i === 5 ? "2026-01-01" : null,
        streamName: "stream",
        status: STATUSES[i % STATUSES.length],
        nextRunAt: i % 3 === 0 ? new Date(T0 + (i % 5) * 60_000) : null,
        detectDeletes: i === 7,
        createdAt: new Date(T0 + (i % 6) * 1000),
      },
    });
    await prisma().sync.update({
      where: { id: sync.id },
      data: { updatedAt: new Date(T0 + (i % 9) * 1000) },
    });
    // Runs: none for some syncs; for others several, the latest by created_at (ties: higher id).
    for (let r = 0; r < i % 3; r++) {
      await prisma().syncRun.create({
        data: {
          workspaceId: ws,
          syncId: sync.id,
          status: r === 0 ? "success" : "failed",
          syncRunType: r === 1 ? "test" : "general",
          startedAt: new Date(T0 + r * 10_000),
          finishedAt: r === 0 ? new Date(T0 + r * 10_000 + 5_000) : null,
          // What the derived outcome reads: rejected rows on some successes, who canceled a failed one.
          failedRows: r === 0 ? i % 2 : 0,
          canceledBy: r === 1 ? "Ada" : null,
          // Held and approved, and what it wrote: the rest of what the run's words read (runTruth).
          successfulRows: r === 0 ? 10 + i : 0,
          approvedBy: r === 0 && i % 4 === 1 ? "Grace" : null,
          plan: r === 0 && i % 2 === 1 ? { exceeded: ["would delete 9 of 10 tracked rows (90%), over the 20% limit"] } : r === 1 ? { exceeded: [] } : undefined,
          createdAt: new Date(T0 + (r === 2 ? 1 : r) * 10_000),
        },
      });
    }
  }
  const deleted = await prisma().sync.findFirstOrThrow({
    where: { workspaceId: ws },
    orderBy: { id: "asc" },
  });
  await prisma().sync.update({ where: { id: deleted.id }, data: { deletedAt: new Date() } });
  deletedSyncId = deleted.id;

  const foreign = await newWorkspace();
  const foreignRefs = await connectorsIn(foreign);
  foreignSyncId = (
    await prisma().sync.create({
      data: {
        workspaceId: foreign,
        sourceId: foreignRefs.source.id,
        destinationId: foreignRefs.destination.id,
        modelId: foreignRefs.model.id,
        scheduleType: "manual",
        syncMode: "full_refresh",
        streamName: "stream",
      },
    })
  ).id;
});

/** `value` with every Date as its ISO text: the view's timestamps are text. */
function isoDates(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(isoDates);
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, isoDates(v)]));
  return value;
}

/** The same rows through Prisma's include and a latest-run lookup per sync (timestamps as ISO text). */
async function reference(filter: ListSyncsQuery, { skip, take }: { skip: number; take: number }) {
  const where: Prisma.SyncWhereInput = {
    workspaceId: ws,
    deletedAt: null,
    ...(filter.status ? { status: filter.status } : {}),
    ...(filter.model_id !== undefined ? { modelId: filter.model_id } : {}),
    ...(filter.source_id !== undefined ? { sourceId: filter.source_id } : {}),
    ...(filter.destination_id !== undefined ? { destinationId: filter.destination_id } : {}),
  };
  const summary = {
    select: { id: true, name: true, description: true, connectorName: true, connectorType: true, workspaceId: true, createdAt: true, updatedAt: true },
  } as const;
  const model = {
    select: {
      id: true,
      name: true,
      description: true,
      query: true,
      queryType: true,
      configuration: true,
      primaryKey: true,
      connectorId: true,
      createdAt: true,
      updatedAt: true,
      connector: summary,
    },
  } as const;
  const rows = await prisma().sync.findMany({
    where,
    include: { source: summary, destination: summary, model },
    orderBy: (filter.sort ?? DEFAULT_SORT) as Prisma.SyncOrderByWithRelationInput[],
    skip,
    take,
  });
  const views: SyncView[] = [];
  for (const row of rows) {
    const run = await prisma().syncRun.findFirst({
      where: { syncId: row.id },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      select: { id: true, status: true, syncRunType: true, startedAt: true, finishedAt: true, failedRows: true, error: true, canceledBy: true, ...truthFacts },
    });
    const lastEnded = await prisma().syncRun.findFirst({
      where: { syncId: row.id, syncRunType: "general", status: { in: ["success", "failed", "canceled"] } },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      select: { id: true, status: true, failedRows: true, error: true, canceledBy: true, finishedAt: true, ...truthFacts },
    });
    // The view leaves out the live stream's position (the engine's, not the API's).
    const { liveLsn: _liveLsn, ...shown } = row;
    views.push(isoDates({ ...shown, lastRun: run && held(run), lastEnded: lastEnded && held(lastEnded) }) as SyncView);
  }
  return { rows: views, total: await prisma().sync.count({ where }) };
}

/** What runTruth reads beside status and counters; `held` from the stored plan's exceeded limits. */
const truthFacts = { successfulRows: true, approvedBy: true, plan: true } as const;
function held<T extends { plan: unknown }>({ plan, ...run }: T) {
  const exceeded = (plan as { exceeded?: unknown } | null)?.exceeded;
  return { ...run, held: Array.isArray(exceeded) && exceeded.length > 0 };
}

const sortOf = (value: string): SortOrder => listSyncsQuerySchema.parse({ sort: value }).sort!;

describe("listSyncs", () => {
  it("matches Prisma's rows, summaries and latest runs for the default order, page by page", async () => {
    for (const query of ["", "page=2&per_page=7", "page=4&per_page=7", "page=9"]) {
      const page = parsePage(new URLSearchParams(query));
      const got = await listSyncs(ws, {}, page);
      expect(got).toEqual(await reference({}, page));
    }
    const all = await listSyncs(ws, {}, parsePage(new URLSearchParams("per_page=100")));
    expect(all.total).toBe(22);
    expect(all.rows.map((r) => r.id)).not.toContain(deletedSyncId);
    expect(all.rows.map((r) => r.id)).not.toContain(foreignSyncId);
    expect(all.rows.filter((r) => r.lastRun === null).length).toBeGreaterThan(0);
  });

  it("orders like Prisma for every sort field and direction (nulls and ties included)", async () => {
    const page = parsePage(new URLSearchParams("per_page=100"));
    for (const field of ["name", "status", "next_run_at", "created_at", "updated_at"]) {
      for (const sort of [field, `-${field}`]) {
        const got = await listSyncs(ws, { sort: sortOf(sort) }, page);
        const want = await reference({ sort: sortOf(sort) }, page);
        expect(
          got.rows.map((r) => r.id),
          sort,
        ).toEqual(want.rows.map((r) => r.id));
      }
    }
  });

  it("orders by the latest run's creation, syncs that never ran last when newest first", async () => {
    const page = parsePage(new URLSearchParams("per_page=100"));
    const latest = new Map<number, number>();
    for (const run of await prisma().syncRun.findMany({ where: { workspaceId: ws }, select: { syncId: true, createdAt: true } }))
      latest.set(run.syncId, Math.max(latest.get(run.syncId) ?? -Infinity, run.createdAt.getTime()));
    const { rows } = await listSyncs(ws, {}, page);
    const at = (id: number) => latest.get(id) ?? -Infinity;
    for (const dir of ["asc", "desc"] as const) {
      const sign = dir === "desc" ? -1 : 1;
      const want = rows.map((r) => r.id).sort((a, b) => sign * (at(a) - at(b) || a - b));
      const got = await listSyncs(ws, { sort: sortOf(dir === "desc" ? "-last_run_at" : "last_run_at") }, page);
      expect(got.rows.map((r) => r.id), dir).toEqual(want);
    }
    expect(latest.size).toBeGreaterThan(1);
    expect(rows.length).toBeGreaterThan(latest.size);
  });

  it("filters like Prisma and counts the filtered total", async () => {
    const page = parsePage(new URLSearchParams("per_page=5"));
    const filters: ListSyncsQuery[] = [
      { status: "failed" },
      { source_id: refs.otherSource.id },
      { model_id: refs.model.id, sort: sortOf("-name") },
      { destination_id: refs.destination.id, status: "healthy" },
      { source_id: 2_000_000_000 },
    ];
    for (const filter of filters)
      expect(await listSyncs(ws, filter, page)).toEqual(await reference(filter, page));
  });

  it("answers an empty page past the end with the total, and an empty workspace with 0", async () => {
    expect(await listSyncs(ws, {}, parsePage(new URLSearchParams("page=50")))).toEqual({
      rows: [],
      total: 22,
    });
    expect(await listSyncs(await newWorkspace(), {}, parsePage(new URLSearchParams()))).toEqual({
      rows: [],
      total: 0,
    });
  });
});

describe("getSync", () => {
  it("is the list's view of the same sync; deleted and foreign syncs are 404", async () => {
    const { rows } = await listSyncs(ws, {}, parsePage(new URLSearchParams("per_page=100")));
    for (const row of rows.slice(0, 5)) expect(await getSync(ws, row.id)).toEqual(row);
    await expect(getSync(ws, deletedSyncId)).rejects.toBeInstanceOf(NotFound);
    await expect(getSync(ws, foreignSyncId)).rejects.toThrow(`Sync ${foreignSyncId} was not found.`);
  });
});

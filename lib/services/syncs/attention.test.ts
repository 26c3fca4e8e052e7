// The syncs list's needs_attention filter is syncTruth's `attention` (the sync badge) written as SQL:
// here both judge every combination of a sync's status, its latest run and its latest ended general run.
import { describe, expect, it } from "vitest";
import { prisma } from "@/lib/db/client";
import type { Prisma, SyncStatus } from "@/lib/generated/prisma/client";
import { parsePage } from "@/lib/http/pagination";
import { CANCELED_ERROR, DISABLED_ERROR, syncTruth, type OutcomeFacts } from "@/lib/sync-rules/run-outcome";
import { useTestDatabase } from "@/tests/support/db";
import { newWorkspace } from "@/tests/support/auth-fixtures";
import { listSyncs, type SyncView } from "./syncs";

useTestDatabase();

type Run = Omit<Prisma.SyncRunCreateManyInput, "workspaceId" | "syncId" | "createdAt">;

const STATUSES: SyncStatus[] = ["pending", "healthy", "failed", "disabled", "aborted"];
/** The latest general run that ended (created first, so any run below is later). */
const ENDED: (Run | null)[] = [
  null,
  { status: "success" },
  { status: "success", failedRows: 3 },
  { status: "failed", error: "connection refused" },
  { status: "failed", canceledBy: "Ada" },
  { status: "failed", error: CANCELED_ERROR },
  { status: "failed", error: DISABLED_ERROR, failedRows: 2 },
  { status: "canceled", failedRows: 4 },
];
/** A run after it: none, one waiting for approval, a failed test, a general run still going. */
const LATEST: (Run | null)[] = [
  null,
  { status: "needs_approval", plan: { exceeded: ["would delete 9 of 10 rows"] } },
  { status: "failed", syncRunType: "test" },
  { status: "in_progress" },
];

const facts = (r: NonNullable<SyncView["lastRun"]> | NonNullable<SyncView["lastEnded"]>): OutcomeFacts => ({
  status: r.status,
  failed_rows: r.failedRows ?? 0,
  error: r.error ?? null,
  canceled_by: r.canceledBy ?? null,
  sync_run_type: "syncRunType" in r ? r.syncRunType : "general",
});

describe("listSyncs needs_attention", () => {
  it("keeps exactly the syncs whose badge needs attention, whatever the page, and counts them", async () => {
    const ws = await newWorkspace();
    const connector = (type: "source" | "destination") =>
      prisma().connector.create({ data: { workspaceId: ws, connectorType: type, connectorName: "Postgresql", name: type, configurationEncrypted: "x" } });
    const source = await connector("source");
    const destination = await connector("destination");
    const model = await prisma().model.create({ data: { workspaceId: ws, connectorId: source.id, name: "m", query: "select 1", primaryKey: "id" } });
    const t0 = Date.parse("2026-01-01T00:00:00Z");
    const runs: Prisma.SyncRunCreateManyInput[] = [];
    for (const status of STATUSES)
      for (const ended of ENDED)
        for (const latest of LATEST) {
          const sync = await prisma().sync.create({
            data: { workspaceId: ws, sourceId: source.id, destinationId: destination.id, modelId: model.id, scheduleType: "manual", syncMode: "full_refresh", streamName: "s", status },
          });
          if (ended) runs.push({ ...ended, workspaceId: ws, syncId: sync.id, createdAt: new Date(t0) });
          if (latest) runs.push({ ...latest, workspaceId: ws, syncId: sync.id, createdAt: new Date(t0 + 1000) });
        }
    await prisma().syncRun.createMany({ data: runs });
    const total = STATUSES.length * ENDED.length * LATEST.length;

    const all = await listSyncs(ws, {}, parsePage(new URLSearchParams("per_page=100&page=1")));
    const rest = await listSyncs(ws, {}, parsePage(new URLSearchParams("per_page=100&page=2")));
    const views = [...all.rows, ...rest.rows];
    expect(views).toHaveLength(total);
    const badge = (s: SyncView) =>
      syncTruth({ status: s.status, last_run: s.lastRun ? facts(s.lastRun) : null, last_outcome: s.lastEnded ? facts(s.lastEnded) : null }).attention;
    const want = views.filter(badge).map((s) => s.id).sort((a, b) => a - b);
    const others = views.filter((s) => !badge(s)).map((s) => s.id).sort((a, b) => a - b);
    // Both sides hold cases: the combinations cover each way in and out of attention.
    expect(want.length).toBeGreaterThan(40);
    expect(others.length).toBeGreaterThan(40);

    const ids = async (needs_attention: boolean, query: string) => {
      const got = await listSyncs(ws, { needs_attention }, parsePage(new URLSearchParams(query)));
      return { ids: got.rows.map((s) => s.id).sort((a, b) => a - b), total: got.total };
    };
    expect(await ids(true, "per_page=100")).toEqual({ ids: want, total: want.length });
    // Paged: the filter is applied before the page is cut, so pages of 25 add up to the same set.
    const pages = await Promise.all([1, 2, 3, 4].map((n) => ids(true, `per_page=25&page=${n}`)));
    expect(pages.flatMap((p) => p.ids).sort((a, b) => a - b)).toEqual(want);
    expect(await ids(false, "per_page=100")).toEqual({ ids: others, total: others.length });
  });
});

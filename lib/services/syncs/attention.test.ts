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
/**
 * A run after it: none, one waiting for approval, a failed test, a general run still going, and a
 * clean success created at the same instant as ENDED (the later id is the latest: ties go by id).
 */
const LATEST: (Run | null)[] = [
  null,
  { status: "needs_approval", plan: { exceeded: ["would delete 9 of 10 rows"] } },
  { status: "failed", syncRunType: "test" },
  { status: "in_progress" },
  { status: "success" },
];
/** A run before ENDED: only the latest counts, so none of these may decide on its own. */
const PRIOR: (Run | null)[] = [null, { status: "failed" }, { status: "needs_approval" }, { status: "success", failedRows: 1 }];
const T0 = Date.parse("2026-01-01T00:00:00Z");
/** When each dimension's run was created: PRIOR first, LATEST last but for its tie with ENDED. */
const createdAt = (which: "prior" | "ended" | "latest", latest: number) =>
  new Date(which === "prior" ? T0 - 1000 : which === "ended" || latest === LATEST.length - 1 ? T0 : T0 + 1000);

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
    const cases = STATUSES.flatMap((status) =>
      PRIOR.flatMap((prior) => ENDED.flatMap((ended) => LATEST.map((latest, l) => ({ status, prior, ended, latest, l })))),
    );
    const syncs = await prisma().sync.createManyAndReturn({
      data: cases.map(({ status }) => ({ workspaceId: ws, sourceId: source.id, destinationId: destination.id, modelId: model.id, scheduleType: "manual" as const, syncMode: "full_refresh" as const, streamName: "s", status })),
      select: { id: true },
    });
    // In id order: prior, ended, latest per sync (createMany keeps the order), so a tie goes to the later run.
    const runs: Prisma.SyncRunCreateManyInput[] = cases.flatMap(({ prior, ended, latest, l }, i) =>
      (
        [
          [prior, "prior"],
          [ended, "ended"],
          [latest, "latest"],
        ] as const
      ).flatMap(([run, which]) => (run ? [{ ...run, workspaceId: ws, syncId: syncs[i].id, createdAt: createdAt(which, l) }] : [])),
    );
    await prisma().syncRun.createMany({ data: runs });
    const total = cases.length;

    const views: SyncView[] = [];
    for (let p = 1; views.length < total; p++) {
      const { rows } = await listSyncs(ws, {}, parsePage(new URLSearchParams(`per_page=100&page=${p}`)));
      expect(rows.length).toBeGreaterThan(0);
      views.push(...rows);
    }
    expect(views).toHaveLength(total);
    const badge = (s: SyncView) =>
      syncTruth({ status: s.status, last_run: s.lastRun ? facts(s.lastRun) : null, last_outcome: s.lastEnded ? facts(s.lastEnded) : null }).attention;
    const want = views.filter(badge).map((s) => s.id).sort((a, b) => a - b);
    const others = views.filter((s) => !badge(s)).map((s) => s.id).sort((a, b) => a - b);
    // Both sides hold cases: the combinations cover each way in and out of attention.
    expect(want.length).toBeGreaterThan(100);
    expect(others.length).toBeGreaterThan(100);

    const ids = async (needs_attention: boolean, query: string) => {
      const got = await listSyncs(ws, { needs_attention }, parsePage(new URLSearchParams(query)));
      return { ids: got.rows.map((s) => s.id).sort((a, b) => a - b), total: got.total };
    };
    const all = async (needs_attention: boolean) => {
      const pages = await Promise.all(Array.from({ length: Math.ceil(total / 100) }, (_, i) => ids(needs_attention, `per_page=100&page=${i + 1}`)));
      expect(new Set(pages.map((p) => p.total)).size).toBe(1);
      return { ids: pages.flatMap((p) => p.ids).sort((a, b) => a - b), total: pages[0].total };
    };
    // Filtered before the page is cut: the pages add up to the same set, each with the whole count.
    expect(await all(true)).toEqual({ ids: want, total: want.length });
    expect(await all(false)).toEqual({ ids: others, total: others.length });
  });
});

// The keeper restarts a live sync left without a run: after a worker died between a run's end and
// queueing the next, after a failure (with a doubling backoff), never after a cancel, and past the
// failure limit it drops the slot instead (a real slot on a private wal_level=logical PostgreSQL).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { liveSlotName } from "@/lib/connectors/live";
import { postgresqlLive } from "@/lib/connectors/postgresql/live";
import { prisma } from "@/lib/db/client";
import { stopEngine } from "@/lib/engine";
import { pgConnectorConfig, sql } from "@/lib/engine/test-support";
import type { SyncRunStatus } from "@/lib/generated/prisma/enums";
import { createScratchDatabase, useTestDatabase } from "@/tests/support/db";
import { createLiveSync, createLiveTable } from "@/tests/support/live-fixture";
import { useLogicalPostgres } from "@/tests/support/logical-postgres";
import { keepLiveSyncsGoing, keeperStep } from "./keeper";

useTestDatabase();
const logical = useLogicalPostgres("live_keeper_source");
let destination: { url: string; drop(): Promise<void> };

beforeAll(async () => {
  destination = await createScratchDatabase("ds_live_keeper_dst");
  await createLiveTable(logical().url, "items");
});

afterAll(async () => {
  await stopEngine();
  await destination?.drop();
});

const SETTINGS = { failureLimit: 3, retryMs: 10_000 };
const at = (iso: string) => new Date(iso);

describe("keeperStep", () => {
  it("starts a run a few seconds after one that succeeded, backs off after failures, gives up at the limit, waits after a cancel", () => {
    expect(keeperStep([], SETTINGS)).toEqual({ action: "none" });
    expect(keeperStep([{ outcome: "succeeded", finishedAt: at("2026-01-01T00:00:00Z") }], SETTINGS)).toEqual({ action: "start", after: at("2026-01-01T00:00:05Z") });
    expect(keeperStep([{ outcome: "succeeded_with_rejections", finishedAt: at("2026-01-01T00:00:00Z") }], SETTINGS).action).toBe("start");
    const failed = { outcome: "failed" as const, finishedAt: at("2026-01-01T00:00:00Z") };
    expect(keeperStep([failed, { outcome: "succeeded", finishedAt: null }], SETTINGS)).toEqual({ action: "start", after: at("2026-01-01T00:00:10Z") });
    expect(keeperStep([failed, failed, { outcome: "canceled", finishedAt: null }], SETTINGS)).toEqual({ action: "start", after: at("2026-01-01T00:00:20Z") });
    expect(keeperStep([failed, failed, failed], SETTINGS)).toEqual({ action: "give_up" });
    expect(keeperStep([{ outcome: "canceled", finishedAt: null }, failed], SETTINGS)).toEqual({ action: "none" });
  });
});

const liveSync = (table: string) => createLiveSync({ sourceUrl: logical().url, sourceTable: "items", destinationUrl: destination.url, destinationTable: table });

/** A general run of the sync that ended long ago as given. */
async function endedRun(f: { workspaceId: number; syncId: number }, status: SyncRunStatus, finishedAt: Date, error: string | null = null): Promise<void> {
  await prisma().syncRun.create({ data: { workspaceId: f.workspaceId, syncId: f.syncId, status, syncRunType: "general", timings: {}, finishedAt, error } });
}

const activeRuns = (syncId: number) => prisma().syncRun.count({ where: { syncId, status: { in: ["queued", "started", "querying", "in_progress"] } } });

describe("keepLiveSyncsGoing", () => {
  it("restarts a live sync whose worker stopped before queueing its next run, once, and leaves a canceled one alone", { timeout: 60_000 }, async () => {
    const f = await liveSync("kept");
    const now = new Date();
    await endedRun(f, "success", new Date(now.getTime() - 60_000));
    expect(await keepLiveSyncsGoing(now)).toBe(1);
    expect(await activeRuns(f.syncId)).toBe(1);
    // Its run is queued: another worker's keeper starts nothing more.
    expect(await keepLiveSyncsGoing(now)).toBe(0);
    expect(await activeRuns(f.syncId)).toBe(1);
    // A person canceled it: it stays stopped until someone runs it.
    await prisma().syncRun.updateMany({ where: { syncId: f.syncId, status: "queued" }, data: { status: "canceled", finishedAt: now, canceledBy: "ada@example.com" } });
    expect(await keepLiveSyncsGoing(new Date(now.getTime() + 3_600_000))).toBe(0);
    expect(await activeRuns(f.syncId)).toBe(0);
  });

  it("retries a failed live sync after a backoff that doubles with each failure in a row, not before", { timeout: 60_000 }, async () => {
    const f = await liveSync("retried");
    const ended = new Date();
    await endedRun(f, "failed", ended, "The source went away.");
    await endedRun(f, "failed", ended, "The source went away.");
    // Two failures in a row: 2 × ENGINE_LIVE_RETRY_SECONDS (30 s by default).
    expect(await keepLiveSyncsGoing(new Date(ended.getTime() + 59_000))).toBe(0);
    expect(await keepLiveSyncsGoing(new Date(ended.getTime() + 61_000))).toBe(1);
    expect(await activeRuns(f.syncId)).toBe(1);
  });

  it("gives up past the failure limit: drops the slot holding the source's WAL, clears the position, starts nothing", { timeout: 60_000 }, async () => {
    const f = await liveSync("given_up");
    const config = pgConnectorConfig(logical().url);
    const slot = await postgresqlLive.open(config, f.syncId, { query: "SELECT id, name FROM items", primaryKey: "id" });
    await slot.release();
    await prisma().sync.update({ where: { id: f.syncId }, data: { liveLsn: slot.lsn } });
    const ended = new Date(Date.now() - 3_600_000);
    for (let i = 0; i < 5; i++) await endedRun(f, "failed", ended, "The source went away.");
    expect(await postgresqlLive.exists(config, f.syncId)).toBe(true);
    expect(await keepLiveSyncsGoing()).toBe(0);
    const slots = await sql(logical().adminUrl, "SELECT 1 FROM pg_replication_slots WHERE slot_name = $1", [liveSlotName(f.syncId)]);
    expect(slots).toEqual([]);
    expect((await prisma().sync.findUniqueOrThrow({ where: { id: f.syncId } })).liveLsn).toBeNull();
    expect(await activeRuns(f.syncId)).toBe(0);
    // Given up once: later passes do nothing.
    expect(await keepLiveSyncsGoing()).toBe(0);
  });
});

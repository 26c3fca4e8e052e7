// The scheduler against real PostgreSQL: due syncs get a queued run and move to their next slot;
// manual and disabled syncs never run on their own; only one process acts per tick.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pgPool, prisma } from "@/lib/db/client";
import { createScratchDatabase, useTestDatabase } from "@/tests/support/db";
import { stopEngine } from "./index";
import { SCHEDULER_LOCK } from "./locks";
import { schedulerTick } from "./scheduler";
import { catalogOf, createFixture, pgConnectorConfig, tableStream, type Fixture } from "./test-support";

useTestDatabase();

let scratch: { url: string; drop(): Promise<void> };
let interval: Fixture;
let manual: Fixture;
let disabled: Fixture;
let unscheduled: Fixture;

beforeAll(async () => {
  scratch = await createScratchDatabase("ds_sched");
  const destination = { connectorName: "Postgresql", config: pgConnectorConfig(scratch.url), catalog: catalogOf(tableStream("people")) };
  const due = new Date(Date.now() - 90_000);
  interval = await createFixture({
    sourceUrl: scratch.url,
    destination,
    sync: { scheduleType: "interval", syncInterval: 1, syncIntervalUnit: "minutes", nextRunAt: due },
  });
  manual = await createFixture({ sourceUrl: scratch.url, destination, sync: { scheduleType: "manual", nextRunAt: due } });
  disabled = await createFixture({
    sourceUrl: scratch.url,
    destination,
    sync: { scheduleType: "cron_expression", cronExpression: "* * * * *", status: "disabled", nextRunAt: due },
  });
  unscheduled = await createFixture({ sourceUrl: scratch.url, destination, sync: { scheduleType: "automated", cronExpression: "0 3 * * *", timezone: "Europe/Paris" } });
});

afterAll(async () => {
  await stopEngine();
  await scratch?.drop();
});

const runsOf = (syncId: number) => prisma().syncRun.findMany({ where: { syncId } });

describe("scheduler", () => {
  it("queues due syncs once, keeps interval syncs on their grid, and skips manual and disabled ones", async () => {
    const before = (await prisma().sync.findUniqueOrThrow({ where: { id: interval.syncId } })).nextRunAt!;
    const now = new Date();
    const queued = await schedulerTick(now);
    expect(queued).toHaveLength(1);
    const runs = await runsOf(interval.syncId);
    expect(runs.map((r) => [r.status, r.syncRunType])).toEqual([["queued", "general"]]);
    const after = (await prisma().sync.findUniqueOrThrow({ where: { id: interval.syncId } })).nextRunAt!;
    expect(after.getTime()).toBeGreaterThan(now.getTime());
    expect((after.getTime() - before.getTime()) % 60_000).toBe(0);
    expect(await runsOf(manual.syncId)).toHaveLength(0);
    expect(await runsOf(disabled.syncId)).toHaveLength(0);
    // An automated sync without next_run_at gets its next cron slot (03:00 in Paris).
    const next = (await prisma().sync.findUniqueOrThrow({ where: { id: unscheduled.syncId } })).nextRunAt!;
    expect(next.getTime()).toBeGreaterThan(now.getTime());
    expect(new Intl.DateTimeFormat("en-GB", { timeZone: "Europe/Paris", hour: "2-digit", minute: "2-digit" }).format(next)).toBe("03:00");

    // Due again while its run is still queued: no second run.
    await prisma().sync.update({ where: { id: interval.syncId }, data: { nextRunAt: new Date(Date.now() - 1000) } });
    expect(await schedulerTick()).toEqual([]);
    expect(await runsOf(interval.syncId)).toHaveLength(1);
  });

  it("does nothing while another process holds the scheduler lock", async () => {
    const other = await pgPool().connect();
    try {
      await other.query("SELECT pg_advisory_lock($1, $2)", SCHEDULER_LOCK);
      expect(await schedulerTick()).toBeNull();
    } finally {
      await other.query("SELECT pg_advisory_unlock($1, $2)", SCHEDULER_LOCK);
      other.release();
    }
  });
});

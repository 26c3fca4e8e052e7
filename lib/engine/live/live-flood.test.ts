// Attack: while a live sync streams, the source commits thousands of transactions that carry nothing
// for it (rows of another table, transactional logical messages, rolled-back changes of its own table).
// The run must not record anything or churn runs for them, and the slot's confirmed position must
// still move past them, or the source keeps their WAL. The application database's writes are counted
// by triggers, so "bounded work" is a count, not a time. (PostgreSQL 15 and later do not send such
// transactions at all; older servers send each as BEGIN/COMMIT, which the stream collapses into one
// event and the run acknowledges without recording: live-run.ts.)
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { liveSlotName, lsnValue } from "@/lib/connectors/live";
import { prisma } from "@/lib/db/client";
import { executeRun } from "@/lib/engine/execute-run";
import { stopEngine, triggerSync } from "@/lib/engine";
import { runRecords, sql, waitFor } from "@/lib/engine/test-support";
import { createScratchDatabase, useTestDatabase } from "@/tests/support/db";
import { createLiveSync, createLiveTable } from "@/tests/support/live-fixture";
import { useLogicalPostgres } from "@/tests/support/logical-postgres";

const app = useTestDatabase();
const logical = useLogicalPostgres("live_flood_source");
let destination: { url: string; drop(): Promise<void> };

const FLOOD_COMMITS = 5_000;
const FLOOD_MESSAGES = 2_000;
const FLOOD_ROLLBACKS = 500;

beforeAll(async () => {
  // Long enough that the rolling run streams through the whole flood.
  process.env.ENGINE_LIVE_PERIOD_SECONDS = "120";
  process.env.ENGINE_STATUS_POLL_MS = "200";
  destination = await createScratchDatabase("ds_live_flood_dst");
  await createLiveTable(logical().url, "people", { rows: 50, label: "Person" });
  await sql(logical().url, "CREATE TABLE noise (id integer PRIMARY KEY, at timestamptz NOT NULL DEFAULT now())");
  // Every write of the application database the run makes, counted per table.
  await sql(
    app.url(),
    `CREATE TABLE flood_writes (tbl text PRIMARY KEY, n integer NOT NULL);
     CREATE FUNCTION count_flood_write() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       INSERT INTO flood_writes VALUES (TG_TABLE_NAME, 1) ON CONFLICT (tbl) DO UPDATE SET n = flood_writes.n + 1;
       RETURN NULL;
     END $$;
     CREATE TRIGGER count_syncs AFTER UPDATE ON syncs FOR EACH ROW EXECUTE FUNCTION count_flood_write();
     CREATE TRIGGER count_runs AFTER INSERT OR UPDATE ON sync_runs FOR EACH ROW EXECUTE FUNCTION count_flood_write();
     CREATE TRIGGER count_blocks AFTER INSERT ON sync_record_blocks FOR EACH ROW EXECUTE FUNCTION count_flood_write();
     CREATE TRIGGER count_states AFTER INSERT OR UPDATE ON sync_states FOR EACH ROW EXECUTE FUNCTION count_flood_write();`,
  );
});

afterAll(async () => {
  await stopEngine();
  await destination?.drop();
});

async function writes(): Promise<Record<string, number>> {
  const rows = await sql<{ tbl: string; n: number }>(app.url(), "SELECT tbl, n FROM flood_writes");
  return Object.fromEntries(rows.map((r) => [r.tbl, r.n]));
}

async function sourceLsn(): Promise<string> {
  const [row] = await sql<{ lsn: string }>(logical().url, "SELECT pg_current_wal_lsn()::text AS lsn");
  return row.lsn;
}

/** The run recorded every change up to `lsn` (the position it saves with a micro-batch's records). */
async function recordedPast(syncId: number, lsn: string): Promise<void> {
  await waitFor(
    async () => {
      const sync = await prisma().sync.findUniqueOrThrow({ where: { id: syncId } });
      return sync.liveLsn !== null && lsnValue(sync.liveLsn) >= lsnValue(lsn) ? true : undefined;
    },
    30_000,
    `the position past ${lsn} recorded`,
  );
}

async function confirmed(syncId: number): Promise<string | null> {
  const rows = await sql<{ lsn: string | null }>(logical().adminUrl, "SELECT confirmed_flush_lsn::text AS lsn FROM pg_replication_slots WHERE slot_name = $1", [liveSlotName(syncId)]);
  return rows[0]?.lsn ?? null;
}

describe("a live sync under a flood of commits that carry nothing for it", () => {
  it("records nothing for them, keeps one run, and still moves the slot past them", { timeout: 120_000 }, async () => {
    // Upsert, not the fixture's mirror: no delete is part of this test.
    const f = await createLiveSync({ sourceUrl: logical().url, sourceTable: "people", destinationUrl: destination.url, destinationTable: "people_live", sync: { writeMode: "upsert" } });
    const run = await triggerSync(f.workspaceId, f.syncId);
    const execution = executeRun(run.id);
    await waitFor(async () => ((await prisma().sync.findUniqueOrThrow({ where: { id: f.syncId } })).liveLsn !== null ? true : undefined), 30_000, "the backfill");

    // One real change, recorded: the pipeline works, and the counts start after it.
    await sql(logical().url, "INSERT INTO people VALUES (51, 'Person 51')");
    await recordedPast(f.syncId, await sourceLsn());
    // The run's row estimate is saved in the background (run-estimate.ts), once, whenever its count
    // is done: under load that can be after the backfill. Not the flood's: let it land first.
    await waitFor(async () => ((await prisma().syncRun.findUniqueOrThrow({ where: { id: run.id } })).estimateSource !== null ? true : undefined), 60_000, "the run's estimate");
    const before = await writes();

    // The flood: each iteration its own committed transaction, in one round trip (no flush wait per commit).
    const flood = (n: number, body: string) =>
      sql(logical().url, `DO $$ BEGIN PERFORM set_config('synchronous_commit', 'off', false); FOR i IN 1..${n} LOOP ${body} END LOOP; END $$`);
    await flood(FLOOD_COMMITS, "INSERT INTO noise (id) VALUES (i); COMMIT;");
    await flood(FLOOD_MESSAGES, "PERFORM pg_logical_emit_message(true, 'noise', 'x'); COMMIT;");
    await flood(FLOOD_ROLLBACKS, "UPDATE people SET name = 'never' WHERE id = 1; ROLLBACK;");
    const floodEnd = await sourceLsn();

    // WAL not held: the slot confirms past the whole flood with nothing of ours in it.
    await waitFor(async () => {
      const lsn = await confirmed(f.syncId);
      return lsn !== null && lsnValue(lsn) >= lsnValue(floodEnd) ? true : undefined;
    }, 60_000, "the slot's confirmed position to pass the flood");
    const during = await writes();
    const grew = Object.fromEntries(Object.entries(during).map(([t, n]) => [t, n - (before[t] ?? 0)]).filter(([, n]) => n !== 0));
    // Not a write per commit, nor one per micro-batch window: none at all.
    expect(grew, "application-database writes the flood caused").toEqual({});

    // The stream is still well: a change after the flood arrives and is recorded.
    await sql(logical().url, "UPDATE people SET name = 'After the flood' WHERE id = 2");
    await recordedPast(f.syncId, await sourceLsn());
    const [row] = await sql<{ name: string }>(destination.url, "SELECT name FROM people_live WHERE id = 2");
    expect(row.name).toBe("After the flood");

    await prisma().sync.update({ where: { id: f.syncId }, data: { status: "disabled" } });
    expect(await execution).toBe("canceled");
    // One run throughout; its records: the backfill's 50, then 51, then 2.
    expect(await prisma().syncRun.count({ where: { syncId: f.syncId } })).toBe(1);
    const records = await runRecords(run.id);
    expect(records.length).toBe(52);
    expect(records.slice(-2).map((r) => [r.primaryKey, r.action])).toEqual([
      ["51", "destination_insert"],
      ["2", "destination_update"],
    ]);
  });
});

// Live syncs end to end on a private wal_level=logical PostgreSQL (the source) and the shared one
// (the destination): the first run backfills from the slot's snapshot then streams inserts, updates
// and deletes (mirror mode) through the batch pipeline; the next rolling run resumes from the slot;
// a disabled sync's slot is dropped; the source and model checks say why a sync cannot run live.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { liveSlotName } from "@/lib/connectors/live";
import { postgresqlLive } from "@/lib/connectors/postgresql/live";
import { prisma } from "@/lib/db/client";
import { executeRun } from "@/lib/engine/execute-run";
import { stopEngine, triggerSync } from "@/lib/engine";
import { catalogOf, createFixture, pgConnectorConfig, reloadRun, runRecords, sql, tableStream, waitFor } from "@/lib/engine/test-support";
import { createScratchDatabase, useTestDatabase } from "@/tests/support/db";
import { useLogicalPostgres } from "@/tests/support/logical-postgres";

useTestDatabase();
const logical = useLogicalPostgres();
let destination: { url: string; drop(): Promise<void> };

const MAPPING = [
  { from: "id", to: "id", mapping_type: "standard" },
  { from: "name", to: "name", mapping_type: "standard" },
  { from: "score", to: "score", mapping_type: "standard" },
];
const MODEL = "SELECT id, name, score FROM people WHERE active";

beforeAll(async () => {
  // Short rolling runs: the tests see a run end and the next one resume from the slot.
  process.env.ENGINE_LIVE_PERIOD_SECONDS = "4";
  process.env.ENGINE_STATUS_POLL_MS = "200";
  destination = await createScratchDatabase("ds_live_dst");
  await sql(logical().url, "CREATE TABLE people (id integer PRIMARY KEY, name text NOT NULL, score integer, active boolean NOT NULL DEFAULT true)");
  await sql(logical().url, "INSERT INTO people SELECT g, 'Person ' || g, g % 10, g % 20 <> 0 FROM generate_series(1, 200) g");
});

afterAll(async () => {
  await stopEngine();
  await destination?.drop();
});

/** Rows of the model as the destination should hold them, and what it holds. */
async function both(table: string): Promise<{ source: string; destination: string }> {
  const [s] = await sql<{ t: string }>(logical().url, "SELECT coalesce(string_agg(id || '|' || name || '|' || score, ',' ORDER BY id), '') AS t FROM people WHERE active");
  const [d] = await sql<{ t: string }>(destination.url, `SELECT coalesce(string_agg(id || '|' || name || '|' || score, ',' ORDER BY id), '') AS t FROM ${table}`);
  return { source: s.t, destination: d.t };
}

async function converged(table: string): Promise<true | undefined> {
  const { source, destination: d } = await both(table);
  return source === d ? true : undefined;
}

async function liveFixture(table: string) {
  await sql(destination.url, `CREATE TABLE ${table} (id integer PRIMARY KEY, name text NOT NULL, score integer)`);
  return createFixture({
    sourceUrl: logical().url,
    destination: { connectorName: "Postgresql", config: pgConnectorConfig(destination.url), catalog: catalogOf(tableStream(table)) },
    query: MODEL,
    sync: { configuration: MAPPING, live: true, syncMode: "incremental", writeMode: "mirror" },
  });
}

async function slotExists(syncId: number): Promise<boolean> {
  const rows = await sql(logical().adminUrl, "SELECT 1 FROM pg_replication_slots WHERE slot_name = $1", [liveSlotName(syncId)]);
  return rows.length > 0;
}

describe("a live PostgreSQL sync", () => {
  it("backfills from the slot's snapshot, streams inserts, updates and deletes, and resumes from the slot", { timeout: 120_000 }, async () => {
    const f = await liveFixture("people_live");
    const run = await triggerSync(f.workspaceId, f.syncId);
    const execution = executeRun(run.id);
    // The backfill: every active row (190 of 200).
    await waitFor(() => converged("people_live"), 30_000, "the backfill");
    expect(await slotExists(f.syncId)).toBe(true);
    // Changes committed while it streams, one of them a transaction of several.
    await sql(logical().url, "INSERT INTO people VALUES (201, 'New 201', 1, true), (202, 'New 202', 2, true)");
    await sql(logical().url, "UPDATE people SET name = 'Renamed 5', score = 99 WHERE id = 5");
    await sql(logical().url, "DELETE FROM people WHERE id IN (7, 8)");
    // Falls out of the model's WHERE: a delete too.
    await sql(logical().url, "UPDATE people SET active = false WHERE id = 9");
    await sql(logical().url, "BEGIN; INSERT INTO people VALUES (203, 'New 203', 3, true); UPDATE people SET score = 42 WHERE id = 203; UPDATE people SET score = 43 WHERE id = 203; COMMIT");
    await waitFor(() => converged("people_live"), 30_000, "the streamed changes");
    expect(await execution).toBe("success");
    const ended = await reloadRun(run.id);
    expect(ended).toMatchObject({ status: "success", failedRows: 0 });
    const records = await runRecords(run.id);
    const actions = (key: string) => records.filter((r) => r.primaryKey === key).map((r) => r.action);
    expect(actions("7")).toEqual(["destination_insert", "destination_delete"]);
    expect(actions("9")).toEqual(["destination_insert", "destination_delete"]);
    expect(actions("5")).toEqual(["destination_insert", "destination_update"]);
    // Three changes of one row in one transaction: its last state, sent once.
    expect(actions("203")).toEqual(["destination_insert"]);
    expect(records.filter((r) => r.status !== "success")).toEqual([]);

    // The next rolling run was queued; it resumes from the slot (no second backfill) and sends only what changed.
    const next = await prisma().syncRun.findFirstOrThrow({ where: { syncId: f.syncId, id: { gt: run.id } } });
    await sql(logical().url, "UPDATE people SET name = 'Again 10' WHERE id = 10");
    const second = executeRun(next.id);
    await waitFor(() => converged("people_live"), 30_000, "the second run's change");
    // Disabled: the run stops and the slot goes.
    await prisma().sync.update({ where: { id: f.syncId }, data: { status: "disabled" } });
    await second;
    const secondRecords = await runRecords(next.id);
    expect(secondRecords.map((r) => [r.primaryKey, r.action])).toEqual([["10", "destination_update"]]);
    expect(await slotExists(f.syncId)).toBe(false);
    expect((await prisma().sync.findUniqueOrThrow({ where: { id: f.syncId } })).liveLsn).toBeNull();
  });

  it("reads a micro-batch's keys on one kept connection, and on a new one when that was ended", async () => {
    const reader = postgresqlLive.keyReader(pgConnectorConfig(logical().url), { query: MODEL, primaryKey: "id" });
    const database = new URL(logical().url).pathname.slice(1);
    const sessions = async () =>
      (await sql<{ pid: number }>(logical().adminUrl, "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend'", [database])).map((r) => r.pid);
    const before = await sessions();
    const own = async () => (await sessions()).filter((pid) => !before.includes(pid));
    const ids = (rows: Record<string, unknown>[]) => rows.map((r) => r.id).sort();
    try {
      expect(ids(await reader.read(["1", "2", "20"]))).toEqual([1, 2]);
      const [first] = await own();
      expect(ids(await reader.read(["3"]))).toEqual([3]);
      expect(await own()).toEqual([first]);
      // Ended while idle between micro-batches (a restart, an administrator): the next read still answers.
      await sql(logical().adminUrl, "SELECT pg_terminate_backend($1)", [first]);
      await waitFor(async () => (!(await sessions()).includes(first) ? true : undefined), 10_000, "the session to end");
      expect(ids(await reader.read(["4"]))).toEqual([4]);
      expect(await own()).toHaveLength(1);
    } finally {
      await reader.close();
    }
    await waitFor(async () => ((await own()).length === 0 ? true : undefined), 10_000, "the reader's session to close");
  });

  it("refuses models that join, and sources without logical replication, saying why", async () => {
    const config = pgConnectorConfig(logical().url);
    await sql(logical().url, "CREATE TABLE teams (id integer PRIMARY KEY, person_id integer)");
    expect(await postgresqlLive.check(config, { query: MODEL, primaryKey: "id" })).toEqual({ ok: true, table: '"public"."people"' });
    const join = await postgresqlLive.check(config, { query: "SELECT p.id, p.name FROM people p JOIN teams t ON t.person_id = p.id", primaryKey: "id" });
    expect(join).toMatchObject({ ok: false, field: "model" });
    expect(join.ok ? "" : join.reason).toMatch(/joins tables.*stay on a schedule/);
    const grouped = await postgresqlLive.check(config, { query: "SELECT score AS id, count(*) FROM people GROUP BY score", primaryKey: "id" });
    expect(grouped).toMatchObject({ ok: false, field: "model" });
    const renamed = await postgresqlLive.check(config, { query: "SELECT score AS id, name FROM people", primaryKey: "id" });
    expect(renamed.ok ? "" : renamed.reason).toMatch(/must be the table's column "id" itself/);
    // The shared server runs wal_level=replica.
    const scratch = await createScratchDatabase("ds_live_replica");
    try {
      const replica = await postgresqlLive.check(pgConnectorConfig(scratch.url), { query: MODEL, primaryKey: "id" });
      expect(replica).toMatchObject({ ok: false, field: "source" });
      expect(replica.ok ? "" : replica.reason).toMatch(/wal_level=replica.*wal_level=logical/);
    } finally {
      await scratch.drop();
    }
  });
});

// The run pipeline against real PostgreSQL: app database per file, source and destination rows in
// scratch databases, the real Postgresql connectors. Runs are triggered through the public API and
// executed in-process (executeRun) so each step's effect can be checked.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prisma } from "@/lib/db/client";
import { FailedDependency, NotFound } from "@/lib/errors";
import { createScratchDatabase, useTestDatabase } from "@/tests/support/db";
import { cancelSync, pruneSequenceRuns, pruneSyncRecords, stopEngine, transitionSyncStatus, triggerSync, triggerTestRun } from "./index";
import { executeRun } from "./execute-run";
import { catalogOf, createFixture, createPeople, pgConnectorConfig, reloadRun, runRecords, sql, stateCount, tableStream, waitFor, type Fixture } from "./test-support";

useTestDatabase();

let source: { url: string; drop(): Promise<void> };
let destination: { url: string; drop(): Promise<void> };

beforeAll(async () => {
  source = await createScratchDatabase("ds_src");
  destination = await createScratchDatabase("ds_dst");
  // people_src: 10,000 people every case copies what it needs from.
  await createPeople(source.url, 10_000);
  await sql(source.url, "ALTER TABLE people RENAME TO people_src");
});

afterAll(async () => {
  await stopEngine();
  await source?.drop();
  await destination?.drop();
});

function pgDestination(table: string, stream: Parameters<typeof tableStream>[1] = {}, rate = {}) {
  return { connectorName: "Postgresql", config: pgConnectorConfig(destination.url), catalog: catalogOf(tableStream(table, stream), rate) };
}

let tables = 0;

/**
 * A sync of its own: a source table with the first `rows` people, an empty destination table of the
 * same shape (both named `table`), so no case depends on another's runs.
 */
async function peopleSync(
  rows: number,
  options: { stream?: Parameters<typeof tableStream>[1]; rate?: Parameters<typeof catalogOf>[1]; sync?: Parameters<typeof createFixture>[0]["sync"] } = {},
): Promise<Fixture & { table: string }> {
  const table = `people_${++tables}`;
  await sql(source.url, `CREATE TABLE ${table} AS SELECT id, name, email, score, updated_at FROM people_src WHERE id <= ${Number(rows)}`);
  await sql(
    destination.url,
    `CREATE TABLE ${table} (id integer PRIMARY KEY, name text NOT NULL, email text, score integer, updated_at timestamptz NOT NULL DEFAULT now())`,
  );
  const f = await createFixture({
    sourceUrl: source.url,
    destination: pgDestination(table, options.stream, options.rate),
    query: `SELECT id, name, email, score, updated_at FROM ${table}`,
    sync: options.sync,
  });
  return { ...f, table };
}

async function run(f: Fixture) {
  const created = await triggerSync(f.workspaceId, f.syncId);
  const result = await executeRun(created.id);
  return { result, run: await reloadRun(created.id), records: await runRecords(created.id) };
}

function normalize(rows: Record<string, unknown>[]) {
  return rows.map((r) => ({ ...r, updated_at: r.updated_at instanceof Date ? r.updated_at.toISOString() : r.updated_at }));
}

async function tableRows(url: string, table: string) {
  return normalize(await sql(url, `SELECT id, name, email, score, updated_at FROM ${table} ORDER BY id`));
}

describe("a PostgreSQL to PostgreSQL sync", () => {
  it("first run sends every row as an insert and the destination equals the source", async () => {
    const f = await peopleSync(10_000);
    const started = Date.now();
    const { result, run: r, records } = await run(f);
    const seconds = (Date.now() - started) / 1000;
    console.log(`first sync: 10000 rows in ${seconds.toFixed(2)} s (${Math.round(10_000 / seconds)} rows/s), timings ${JSON.stringify(r.timings)}`);
    expect(result).toBe("success");
    expect(r.status).toBe("success");
    expect(r.error).toBeNull();
    expect(records).toHaveLength(10_000);
    expect(records.every((x) => x.action === "destination_insert" && x.status === "success")).toBe(true);
    // Batches commit in parallel, so the first record id may belong to any batch: look it up by key.
    expect(records.find((x) => x.primaryKey === "1")?.record).toMatchObject({ id: 1, name: "Person 1", email: "person1@example.com" });
    expect(r).toMatchObject({ totalQueryRows: 10_000, processedRows: 10_000, totalRows: 10_000, successfulRows: 10_000, failedRows: 0, skippedRows: 0 });
    expect(Object.keys(r.timings as object).sort()).toEqual(["diff", "load", "query", "record", "wait"]);
    expect(await tableRows(destination.url, f.table)).toEqual(await tableRows(source.url, f.table));
    const sync = await prisma().sync.findUniqueOrThrow({ where: { id: f.syncId } });
    expect(sync.status).toBe("healthy");
    expect(await stateCount(f.syncId)).toBe(10_000);
  });

  it("a re-run with no change sends nothing and counts every row skipped", async () => {
    const f = await peopleSync(2000);
    expect((await run(f)).result).toBe("success");
    const { result, run: r, records } = await run(f);
    expect(result).toBe("success");
    expect(records).toHaveLength(0);
    expect(r).toMatchObject({ totalQueryRows: 2000, totalRows: 0, skippedRows: 2000, successfulRows: 0, failedRows: 0 });
  });

  it("an incremental run sends exactly the changed and new rows; deletes only when enabled", async () => {
    const f = await peopleSync(2000);
    expect((await run(f)).result).toBe("success");
    await sql(source.url, `UPDATE ${f.table} SET name = name || ' (changed)' WHERE id IN (10, 20, 30)`);
    await sql(source.url, `DELETE FROM ${f.table} WHERE id = 40`);
    await sql(source.url, `INSERT INTO ${f.table} (id, name, email, score, updated_at) VALUES (10001, 'New A', 'a@x.io', 1, now()), (10002, 'New B', 'b@x.io', 2, now())`);

    const first = await run(f);
    expect(first.result).toBe("success");
    const actions = first.records.map((x) => `${x.primaryKey}:${x.action}`).sort();
    expect(actions).toEqual(["10001:destination_insert", "10002:destination_insert", "10:destination_update", "20:destination_update", "30:destination_update"].sort());
    expect(first.run).toMatchObject({ totalRows: 5, successfulRows: 5, skippedRows: 1996 });
    expect((await sql(destination.url, `SELECT count(*)::int AS n FROM ${f.table} WHERE id = 40`))[0].n).toBe(1);

    await prisma().sync.update({ where: { id: f.syncId }, data: { detectDeletes: true } });
    const second = await run(f);
    expect(second.result).toBe("success");
    expect(second.records.map((x) => [x.primaryKey, x.action, x.status])).toEqual([["40", "destination_delete", "success"]]);
    expect(await tableRows(destination.url, f.table)).toEqual(await tableRows(source.url, f.table));
    expect(await stateCount(f.syncId, "40")).toBe(0);

    const third = await run(f);
    expect(third.records).toHaveLength(0);
  });

  it("full refresh re-sends every row of the model", async () => {
    const f = await peopleSync(2000);
    expect((await run(f)).result).toBe("success");
    await prisma().sync.update({ where: { id: f.syncId }, data: { syncMode: "full_refresh" } });
    const { run: r, records } = await run(f);
    expect(records).toHaveLength(2000);
    expect(records.every((x) => x.action === "destination_update" && x.status === "success")).toBe(true);
    expect(r).toMatchObject({ totalRows: 2000, skippedRows: 0 });
  });

  it("refuses a trigger while a run is active, and for unknown or foreign syncs", async () => {
    const f = await peopleSync(100);
    const active = await triggerSync(f.workspaceId, f.syncId);
    await expect(triggerSync(f.workspaceId, f.syncId)).rejects.toBeInstanceOf(FailedDependency);
    await expect(triggerSync(f.workspaceId + 999, f.syncId)).rejects.toBeInstanceOf(NotFound);
    expect(await executeRun(active.id)).toBe("success");
  });
});

describe("failures", () => {
  it("rows the destination refuses fail alone, are retried on the next run, and succeed once fixed", async () => {
    await sql(source.url, "CREATE TABLE scores AS SELECT id, name, email, score, updated_at FROM people_src WHERE id <= 500");
    await sql(source.url, "UPDATE scores SET score = -1 WHERE id IN (7, 300)");
    await sql(destination.url, "CREATE TABLE scores (id integer PRIMARY KEY, name text, email text, score integer CHECK (score >= 0), updated_at timestamptz)");
    const f = await createFixture({
      sourceUrl: source.url,
      destination: pgDestination("scores"),
      query: "SELECT * FROM scores",
    });
    const first = await run(f);
    expect(first.result).toBe("success");
    const failed = first.records.filter((x) => x.status === "failed");
    expect(failed.map((x) => x.primaryKey).sort()).toEqual(["300", "7"]);
    expect(failed[0].error).toMatch(/check constraint|violates/i);
    expect(first.run).toMatchObject({ successfulRows: 498, failedRows: 2 });

    const retry = await run(f);
    expect(retry.records.map((x) => [x.primaryKey, x.action, x.status]).sort()).toEqual([
      ["300", "destination_insert", "failed"],
      ["7", "destination_insert", "failed"],
    ]);
    // Every attempted record failed: the run fails and says why; the sync is failed.
    expect(retry.run.status).toBe("failed");
    expect(retry.run.error).toMatch(/All 2 records failed/);
    expect((await prisma().sync.findUniqueOrThrow({ where: { id: f.syncId } })).status).toBe("failed");

    await sql(destination.url, "ALTER TABLE scores DROP CONSTRAINT scores_score_check");
    const fixed = await run(f);
    expect(fixed.records.map((x) => [x.primaryKey, x.status]).sort()).toEqual([
      ["300", "success"],
      ["7", "success"],
    ]);
    expect((await prisma().sync.findUniqueOrThrow({ where: { id: f.syncId } })).status).toBe("healthy");
    expect((await sql(destination.url, "SELECT count(*)::int AS n FROM scores"))[0].n).toBe(500);
  });

  it("a template failing on one row fails that record; duplicate keys are counted, not sent twice", async () => {
    await sql(destination.url, "CREATE TABLE tagged (id integer PRIMARY KEY, label text, score numeric)");
    const f = await createFixture({
      sourceUrl: source.url,
      destination: pgDestination("tagged"),
      query: "SELECT id, name, CASE WHEN id = 5 THEN 'n/a' ELSE score::text END AS score FROM people_src WHERE id <= 20 UNION ALL SELECT id, name, score::text FROM people_src WHERE id IN (3, 4)",
      sync: {
        configuration: [
          { from: "id", to: "id", mapping_type: "standard" },
          { from: "{{ name | upcase }}", to: "label", mapping_type: "template" },
          { from: "{{ score | cast: 'number' }}", to: "score", mapping_type: "template" },
        ],
      },
    });
    const { result, run: r, records } = await run(f);
    expect(result).toBe("success");
    expect(r).toMatchObject({ totalQueryRows: 22, duplicateRows: 2, totalRows: 20, successfulRows: 19, failedRows: 1 });
    const bad = records.find((x) => x.primaryKey === "5");
    expect(bad?.status).toBe("failed");
    expect(bad?.error).toMatch(/"n\/a" is not a number/);
    expect((await sql(destination.url, "SELECT label FROM tagged WHERE id = 1"))[0].label).toBe("PERSON 1");
  });

  it("a source that cannot be read fails the run with the reason", async () => {
    await sql(destination.url, "CREATE TABLE broken (id integer PRIMARY KEY)");
    const f = await createFixture({ sourceUrl: source.url, destination: pgDestination("broken"), query: "SELECT * FROM no_such_table" });
    const { result, run: r } = await run(f);
    expect(result).toBe("failed");
    expect(r.status).toBe("failed");
    expect(r.error).toMatch(/no_such_table/);
    expect(r.finishedAt).not.toBeNull();
  });
});

describe("cursor_field incremental", () => {
  it("reads only rows at or after the saved cursor and saves it after each batch", async () => {
    await sql(source.url, "CREATE TABLE events AS SELECT id, name, email, score, updated_at FROM people_src WHERE id <= 3000");
    await sql(destination.url, "CREATE TABLE events (id integer PRIMARY KEY, name text, email text, score integer, updated_at timestamptz)");
    const f = await createFixture({
      sourceUrl: source.url,
      destination: pgDestination("events"),
      query: "SELECT * FROM events",
      sync: { cursorField: "updated_at" },
    });
    const first = await run(f);
    expect(first.records).toHaveLength(3000);
    const afterFirst = await prisma().sync.findUniqueOrThrow({ where: { id: f.syncId } });
    expect(afterFirst.currentCursorField).toBe("2026-01-01T00:50:00.000Z");

    await sql(source.url, "UPDATE events SET name = 'moved', updated_at = timestamptz '2026-02-01' + id * interval '1 second' WHERE id IN (5, 6)");
    // Changed without moving its cursor: an incremental read by cursor does not see it (by design).
    await sql(source.url, "UPDATE events SET name = 'silent' WHERE id = 7");
    const second = await run(f);
    expect(second.run.totalQueryRows).toBe(3); // the boundary row 3000 and the two moved rows
    expect(second.records.map((x) => [x.primaryKey, x.action]).sort()).toEqual([
      ["5", "destination_update"],
      ["6", "destination_update"],
    ]);
    const afterSecond = await prisma().sync.findUniqueOrThrow({ where: { id: f.syncId } });
    expect(afterSecond.currentCursorField).toBe("2026-02-01T00:00:06.000Z");
    expect((await sql(destination.url, "SELECT name FROM events WHERE id = 7"))[0].name).toBe("Person 7");
  });
});

describe("test runs, cancel, status and retention", () => {
  it("a test run sends one row on its own and leaves change tracking alone", async () => {
    const f = await peopleSync(2000);
    const created = await triggerTestRun(f.workspaceId, f.syncId);
    expect(created.syncRunType).toBe("test");
    expect(await executeRun(created.id)).toBe("success");
    const records = await runRecords(created.id);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ status: "success", action: "destination_insert" });
    expect((await sql(destination.url, `SELECT count(*)::int AS n FROM ${f.table}`))[0].n).toBe(1);
    expect(await stateCount(f.syncId)).toBe(0);
    expect((await prisma().sync.findUniqueOrThrow({ where: { id: f.syncId } })).status).toBe("pending");

    // Its worker dies after recording the row: the resumed attempt does not send a second one.
    await prisma().syncRun.update({ where: { id: created.id }, data: { status: "in_progress", finishedAt: null } });
    expect(await executeRun(created.id)).toBe("success");
    expect(await runRecords(created.id)).toHaveLength(1);
    expect((await sql(destination.url, `SELECT count(*)::int AS n FROM ${f.table}`))[0].n).toBe(1);
  });

  it("a test run sends the row picked by primary key; a key no row has fails the run and sends nothing", async () => {
    const f = await peopleSync(2000);
    const picked = await triggerTestRun(f.workspaceId, f.syncId, "1500");
    expect(picked.testPrimaryKey).toBe("1500");
    expect(await executeRun(picked.id)).toBe("success");
    const records = await runRecords(picked.id);
    expect(records.map((r) => r.primaryKey)).toEqual(["1500"]);

    const missing = await triggerTestRun(f.workspaceId, f.syncId, "no-such-key");
    await executeRun(missing.id);
    const r = await reloadRun(missing.id);
    expect(r.status).toBe("failed");
    expect(r.error).toContain('= "no-such-key"; nothing was sent');
    expect(await runRecords(missing.id)).toHaveLength(0);
    expect((await sql(destination.url, `SELECT count(*)::int AS n FROM ${f.table}`))[0].n).toBe(1);
  });

  it("cancel stops an active run; the records sent so far are kept", async () => {
    // 10 rows per request and 20 requests per second: 2000 rows take about 10 s, time enough to cancel.
    const f = await peopleSync(2000, {
      stream: { batch_size: 10 },
      rate: { request_rate_limit: 20, request_rate_limit_unit: "second", request_rate_concurrency: 2 },
    });
    const created = await triggerSync(f.workspaceId, f.syncId);
    const execution = executeRun(created.id);
    const delivered = async () => (await sql<{ n: number }>(destination.url, `SELECT count(*)::int AS n FROM ${f.table}`))[0].n;
    await waitFor(async () => ((await delivered()) > 100 ? true : undefined), 20_000, "the first rows to arrive");
    const canceled = await cancelSync(f.workspaceId, f.syncId, "Ada Lovelace");
    // docs/architecture.md "Run states": a run that could not finish ends failed, with the reason in error.
    expect(canceled.status).toBe("failed");
    expect(await execution).toBe("canceled");
    const r = await reloadRun(created.id);
    expect(r.status).toBe("failed");
    expect(r.error).toMatch(/^Canceled before it finished/);
    expect(r.canceledBy).toBe("Ada Lovelace");
    expect(r.successfulRows).toBeLessThan(2000);
    expect(await runRecords(created.id)).toHaveLength(r.totalRows);
    // Every row that reached the destination has its record and state.
    expect(r.successfulRows).toBeGreaterThanOrEqual(await delivered());
    expect(await stateCount(f.syncId)).toBe(r.successfulRows);
    // A cancel says nothing about the sync's health: it keeps the status it had (pending: it never ran to the end).
    expect((await prisma().sync.findUniqueOrThrow({ where: { id: f.syncId } })).status).toBe("pending");
    await expect(cancelSync(f.workspaceId, f.syncId)).rejects.toBeInstanceOf(FailedDependency);
  });

  it("a disabled sync cannot be triggered or tested; enabling makes it pending", async () => {
    const f = await peopleSync(10);
    const disabled = await transitionSyncStatus(f.workspaceId, f.syncId, "disabled");
    expect(disabled.status).toBe("disabled");
    await expect(triggerSync(f.workspaceId, f.syncId)).rejects.toBeInstanceOf(FailedDependency);
    await expect(triggerTestRun(f.workspaceId, f.syncId)).rejects.toBeInstanceOf(FailedDependency);
    await expect(transitionSyncStatus(f.workspaceId, f.syncId, "healthy")).rejects.toThrow(/cannot go from disabled to healthy/);
    expect((await transitionSyncStatus(f.workspaceId, f.syncId, "pending")).status).toBe("pending");
  });

  it("prunes records of runs finished before the retention window", async () => {
    const f = await peopleSync(50);
    const old = (await run(f)).run;
    const recent = (await run(await peopleSync(30))).run;
    const count = async (runId: number) => (await runRecords(runId)).length;
    expect(await count(old.id)).toBe(50);
    await prisma().syncRun.update({ where: { id: old.id }, data: { finishedAt: new Date(Date.now() - 31 * 86_400_000) } });
    expect(await pruneSyncRecords({ retentionDays: 30 })).toBe(50);
    expect(await count(old.id)).toBe(0);
    expect(await count(recent.id)).toBe(30);
  });

  it("prunes sequence runs started before the retention window, with their steps", async () => {
    const f = await peopleSync(1);
    const started = (createdAt: Date) =>
      prisma().sequenceRun.create({ data: { workspaceId: f.workspaceId, syncId: f.syncId, createdAt, steps: { create: [{ syncId: f.syncId, upstreamSyncIds: [] }] } } });
    const old = await started(new Date(Date.now() - 31 * 86_400_000));
    const recent = await started(new Date());
    expect(await pruneSequenceRuns({ retentionDays: 30 })).toBe(1);
    expect(await prisma().sequenceRun.findUnique({ where: { id: old.id } })).toBeNull();
    expect(await prisma().sequenceRunStep.count({ where: { sequenceRunId: old.id } })).toBe(0);
    expect(await prisma().sequenceRunStep.count({ where: { sequenceRunId: recent.id } })).toBe(1);
  });

  it("deleting the workspace deletes its runs' records and its syncs' states (triggers, not foreign keys)", async () => {
    const f = await peopleSync(200);
    const other = await peopleSync(100);
    expect((await run(f)).result).toBe("success");
    expect((await run(other)).result).toBe("success");
    const otherStates = await stateCount(other.syncId);
    const states = () => stateCount(f.syncId);
    const records = async () => (await sql<{ n: number }>(process.env.DATABASE_URL as string, "SELECT count(*)::int AS n FROM sync_record_rows WHERE sync_id = $1", [f.syncId]))[0].n;
    expect(await states()).toBe(200);
    expect(await records()).toBe(200);
    await prisma().workspace.delete({ where: { id: f.workspaceId } });
    expect(await states()).toBe(0);
    expect(await records()).toBe(0);
    // Another workspace keeps its own.
    expect(otherStates).toBe(100);
    expect(await stateCount(other.syncId)).toBe(otherStates);
  });
});

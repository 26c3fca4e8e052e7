// The plan against real PostgreSQL: it must agree with the run that follows it (same insert, update,
// delete and skip counts as the run's records) on both read paths, write nothing, and the guard
// built on it must hold a run before its first write, let it go on once approved, and drop it on cancel.
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { prisma } from "@/lib/db/client";
import { Conflict } from "@/lib/errors";
import { CANCELED_ERROR, runOutcome } from "@/lib/sync-rules/run-outcome";
import { createScratchDatabase, useTestDatabase } from "@/tests/support/db";
import { approveRun, cancelSync, planSync, stopEngine, triggerSync, type SyncPlan } from "../index";
import { executeRun } from "../execute-run";
import { catalogOf, createFixture, readPath, reloadRun, runRecords, sql, pgConnectorConfig, stateRows, tableStream, type Fixture, type ReadPath } from "../test-support";

useTestDatabase();

let source: { url: string; drop(): Promise<void> };
let destination: { url: string; drop(): Promise<void> };

beforeAll(async () => {
  source = await createScratchDatabase("ds_plan_src");
  destination = await createScratchDatabase("ds_plan_dst");
});

afterAll(async () => {
  await stopEngine();
  await source?.drop();
  await destination?.drop();
});

let tables = 0;

/** Read paths: lines passed through, or with a template's column computed, mapped (a rate limit rules out pass-through), rows (lines off). */
const PATHS = ["COPY text", "computed lines", "mapped lines", "JSON"] as const;
const READ_PATH: Record<(typeof PATHS)[number], ReadPath> = { "COPY text": "pass-through", "computed lines": "pass-through", "mapped lines": "mapped lines", JSON: "rows" };
/** The options of peopleSync for a path. */
const pathOptions = (path: (typeof PATHS)[number]) => ({ json: path !== "COPY text", rate: path === "mapped lines" ? 1_000_000 : undefined });

/** The JSON path is the one a sync takes when lines are off (or its states hold the JSON path's fingerprints). */
function linesOff(path: (typeof PATHS)[number]): void {
  if (path !== "JSON") return;
  process.env.ENGINE_PASS_THROUGH = "0";
  onTestFinished(() => {
    delete process.env.ENGINE_PASS_THROUGH;
  });
}

/** A source table of `rows` people and an empty destination table; `json` maps through a template (not passed through). */
async function peopleSync(
  rows: number,
  options: { json?: boolean; rate?: number; sync?: Parameters<typeof createFixture>[0]["sync"] } = {},
): Promise<Fixture & { table: string }> {
  const table = `plan_people_${++tables}`;
  await sql(
    source.url,
    `CREATE TABLE ${table} AS SELECT g AS id, 'Person ' || g AS name, 'p' || g || '@example.com' AS email, g % 100 AS score,
       timestamptz '2026-01-01' + g * interval '1 second' AS updated_at FROM generate_series(1, ${Number(rows)}) g`,
  );
  await sql(destination.url, `CREATE TABLE ${table} (id integer PRIMARY KEY, name text, email text, score integer, updated_at timestamptz)`);
  const configuration = options.json
    ? [
        { from: "id", to: "id", mapping_type: "standard" },
        { from: "{{ name | upcase }}", to: "name", mapping_type: "template" },
        { from: "email", to: "email", mapping_type: "standard" },
        { from: "score", to: "score", mapping_type: "standard" },
        { from: "updated_at", to: "updated_at", mapping_type: "standard" },
      ]
    : undefined;
  const f = await createFixture({
    sourceUrl: source.url,
    destination: {
      connectorName: "Postgresql",
      config: pgConnectorConfig(destination.url),
      catalog: catalogOf(tableStream(table), options.rate ? { request_rate_limit: options.rate } : {}),
    },
    query: `SELECT id, name, email, score, updated_at FROM ${table}`,
    sync: { ...(configuration ? { configuration } : {}), ...options.sync },
  });
  return { ...f, table };
}

async function run(f: Fixture) {
  const created = await triggerSync(f.workspaceId, f.syncId);
  const result = await executeRun(created.id);
  return { result, run: await reloadRun(created.id), records: await runRecords(created.id) };
}

/** A run's records as plan counts. */
function recordCounts(records: Awaited<ReturnType<typeof runRecords>>) {
  const sent = records.filter((r) => r.status !== "skipped");
  return {
    insert: sent.filter((r) => r.action === "destination_insert").length,
    update: sent.filter((r) => r.action === "destination_update").length,
    delete: sent.filter((r) => r.action === "destination_delete").length,
    skip: records.filter((r) => r.status === "skipped").length,
  };
}

const planCounts = (p: SyncPlan) => ({ insert: p.counts.insert, update: p.counts.update, delete: p.counts.delete, skip: p.counts.skip });

/** Everything a plan must leave as it was: destination rows, change tracking, cursor, runs. */
async function snapshot(f: Fixture & { table: string }) {
  const [sync, states, runs, rows] = await Promise.all([
    prisma().sync.findUniqueOrThrow({ where: { id: f.syncId }, select: { currentCursorField: true, status: true, updatedAt: true } }),
    stateRows(f.syncId),
    prisma().syncRun.findMany({ where: { syncId: f.syncId }, orderBy: { id: "asc" } }),
    sql(destination.url, `SELECT * FROM ${f.table} ORDER BY id`),
  ]);
  return { sync, states, runs, rows };
}

/** Plans (checking it changed nothing), then runs, and returns both sides' counts. */
async function planThenRun(f: Fixture & { table: string }) {
  const before = await snapshot(f);
  const plan = await planSync(f.workspaceId, f.syncId, { sampleSize: 5 });
  expect(await snapshot(f)).toEqual(before);
  const after = await run(f);
  expect(after.result).toBe("success");
  return { plan, ...after };
}

const counted: Record<string, unknown> = {};

describe("the plan matches the run that follows it", () => {
  for (const path of PATHS) {
    it(`${path} path: a first sync, a changed sync and a mirror sync`, { timeout: 60_000 }, async () => {
      linesOff(path);
      const f = await peopleSync(1000, pathOptions(path));

      const first = await planThenRun(f);
      expect(planCounts(first.plan)).toEqual({ insert: 1000, update: 0, delete: 0, skip: 0 });
      expect(recordCounts(first.records)).toEqual(planCounts(first.plan));
      // The run took the path this case is about (records kept as COPY text, or as JSON).
      expect(readPath(first.run)).toBe(READ_PATH[path]);
      expect(first.plan).toMatchObject({ tracked: 0, full_read: true, cursor: null });
      expect(first.plan.counts).toMatchObject({ read: 1000, unchanged: 0, duplicate: 0, blank_key: 0 });
      // Samples: the source row and the payload the mapping makes of it.
      expect(first.plan.samples.insert).toHaveLength(5);
      const sample = first.plan.samples.insert[0];
      expect(sample.row).toMatchObject({ id: Number(sample.primary_key), name: `Person ${sample.primary_key}` });
      expect(sample.payload).toMatchObject({ id: Number(sample.primary_key), name: path !== "COPY text" ? `PERSON ${sample.primary_key}` : `Person ${sample.primary_key}` });

      // 3 changed, 2 new, 1 gone (not deleted: delete detection is off), 1 duplicate and 1 blank key in the read.
      await sql(source.url, `UPDATE ${f.table} SET name = name || ' (changed)' WHERE id IN (10, 20, 30)`);
      await sql(source.url, `DELETE FROM ${f.table} WHERE id = 40`);
      await sql(source.url, `INSERT INTO ${f.table} VALUES (1001, 'New A', 'a@x.io', 1, now()), (1002, 'New B', 'b@x.io', 2, now()), (5, 'Again', 'x', 1, now()), (NULL, 'No key', 'y', 1, now())`);
      const changed = await planThenRun(f);
      expect(planCounts(changed.plan)).toEqual({ insert: 2, update: 3, delete: 0, skip: 0 });
      expect(recordCounts(changed.records)).toEqual(planCounts(changed.plan));
      expect(changed.plan.counts).toMatchObject({ read: 1003, unchanged: 996, duplicate: 1, blank_key: 1 });
      expect(changed.run.skippedRows).toBe(changed.plan.counts.unchanged + changed.plan.counts.blank_key);
      expect(changed.run.duplicateRows).toBe(changed.plan.counts.duplicate);
      expect(changed.plan.samples.update.map((s) => s.primary_key).sort()).toEqual(["10", "20", "30"]);

      // Mirror: keys that left the model are deleted (3 of 1002 tracked, under the 20% default).
      await prisma().sync.update({ where: { id: f.syncId }, data: { writeMode: "mirror" } });
      await sql(source.url, `DELETE FROM ${f.table} WHERE id IN (1, 2) OR id IS NULL OR name = 'Again'`);
      await sql(source.url, `UPDATE ${f.table} SET score = 99 WHERE id = 50`);
      const mirror = await planThenRun(f);
      expect(planCounts(mirror.plan)).toEqual({ insert: 0, update: 1, delete: 3, skip: 0 });
      expect(recordCounts(mirror.records)).toEqual(planCounts(mirror.plan));
      expect(mirror.plan.samples.delete.map((s) => s.primary_key).sort()).toEqual(["1", "2", "40"]);
      expect(mirror.plan.samples.delete[0]).toMatchObject({ row: null, payload: { id: expect.anything() } });
      // The guarded run planned too, and kept the counts (no samples) on the run.
      expect(mirror.run.plan).toMatchObject({ counts: mirror.plan.counts, tracked: 1002, exceeded: [] });
      expect(mirror.run.plan).not.toHaveProperty("samples");
      counted[path] = { first: planCounts(first.plan), changed: planCounts(changed.plan), mirror: planCounts(mirror.plan) };
    });
  }

  for (const path of ["COPY text", "JSON"] as const) {
    it(`${path} path: update and insert modes skip as the plan said, against rows the sync never wrote`, { timeout: 60_000 }, async () => {
      const json = path === "JSON";
      // Rows 1–40 were put in the destination by someone else: the sync has no state for them.
      const seeded = async (table: string) =>
        sql(destination.url, `INSERT INTO ${table} (id, name, email, score) SELECT g, 'Theirs ' || g, 't' || g || '@example.com', 0 FROM generate_series(1, 40) g`);

      const update = await peopleSync(100, { json, sync: { writeMode: "update" } });
      await seeded(update.table);
      const u1 = await planThenRun(update);
      // The rows new to the sync but present in the destination are updates, as the run records them.
      expect(planCounts(u1.plan)).toEqual({ insert: 0, update: 40, delete: 0, skip: 60 });
      expect(recordCounts(u1.records)).toEqual(planCounts(u1.plan));
      expect(u1.plan.samples.skip[0].reason).toMatch(/^update mode: key \d+ is not in the destination/);
      // Changed rows: 2 present (updated), 1 absent (still skipped), and a row of theirs was deleted.
      await sql(source.url, `UPDATE ${update.table} SET score = 77 WHERE id IN (3, 4, 90)`);
      await sql(destination.url, `DELETE FROM ${update.table} WHERE id = 4`);
      const u2 = await planThenRun(update);
      expect(planCounts(u2.plan)).toEqual({ insert: 0, update: 1, delete: 0, skip: 2 });
      expect(recordCounts(u2.records)).toEqual(planCounts(u2.plan));

      const insert = await peopleSync(100, { json, sync: { writeMode: "insert" } });
      await seeded(insert.table);
      const i1 = await planThenRun(insert);
      expect(planCounts(i1.plan)).toEqual({ insert: 60, update: 0, delete: 0, skip: 40 });
      expect(recordCounts(i1.records)).toEqual(planCounts(i1.plan));
      expect(i1.plan.samples.skip[0].reason).toMatch(/^insert mode: key \d+ is already in the destination/);
      // Theirs are left as they were; the new keys are the sync's.
      expect(await sql(destination.url, `SELECT count(*)::int AS n FROM ${insert.table} WHERE name LIKE 'Theirs %'`)).toEqual([{ n: 40 }]);
      await sql(source.url, `UPDATE ${insert.table} SET score = 77 WHERE id IN (5, 95)`);
      await sql(source.url, `INSERT INTO ${insert.table} VALUES (101, 'New', 'n@x.io', 1, now())`);
      const i2 = await planThenRun(insert);
      expect(planCounts(i2.plan)).toEqual({ insert: 1, update: 0, delete: 0, skip: 2 });
      expect(recordCounts(i2.records)).toEqual(planCounts(i2.plan));
      counted[`${path} modes`] = { update: [planCounts(u1.plan), planCounts(u2.plan)], insert: [planCounts(i1.plan), planCounts(i2.plan)] };
    });
  }

  it("an incremental sync plans from its saved cursor", { timeout: 30_000 }, async () => {
    const f = await peopleSync(500, { sync: { cursorField: "updated_at", syncMode: "incremental" } });
    await run(f);
    const cursor = (await prisma().sync.findUniqueOrThrow({ where: { id: f.syncId } })).currentCursorField;
    expect(cursor).not.toBeNull();
    await sql(source.url, `INSERT INTO ${f.table} VALUES (501, 'Later', 'l@x.io', 1, timestamptz '2027-01-01')`);
    const { plan, records } = await planThenRun(f);
    expect(plan.cursor).toEqual({ field: "updated_at", from: cursor });
    // The cursor row itself is read again (>=), unchanged; the new row is the one insert.
    expect(plan.counts).toMatchObject({ read: 2, insert: 1, update: 0, unchanged: 1 });
    expect(recordCounts(records)).toEqual(planCounts(plan));
  });

  afterAll(() => {
    console.log(`plan vs run counts: ${JSON.stringify(counted)}`);
  });
});

describe("the blast-radius guard", () => {
  it("holds a mirror run that would delete 95% before its first write, and runs it once approved", { timeout: 30_000 }, async () => {
    const f = await peopleSync(100, { sync: { writeMode: "mirror" } });
    expect((await run(f)).result).toBe("success");
    await sql(source.url, `DELETE FROM ${f.table} WHERE id > 5`);
    const before = await snapshot(f);

    const held = await run(f);
    expect(held.result).toBe("needs_approval");
    expect(held.run.status).toBe("needs_approval");
    expect(held.run.error).toContain("would delete 95 of 100 tracked rows (95%), over the 20% limit");
    expect(held.run.plan).toMatchObject({ counts: { delete: 95, insert: 0, update: 0 }, tracked: 100, exceeded: [expect.stringContaining("95%")] });
    expect(held.records).toHaveLength(0);
    expect(held.run.finishedAt).toBeNull();
    // Nothing written: destination, states and cursor as they were.
    const now = await snapshot(f);
    expect({ rows: now.rows, states: now.states, cursor: now.sync.currentCursorField }).toEqual({
      rows: before.rows,
      states: before.states,
      cursor: before.sync.currentCursorField,
    });
    // It keeps the sync's single active run: another trigger says why it cannot start.
    await expect(triggerSync(f.workspaceId, f.syncId)).rejects.toThrow(/waiting for approval/);

    const approved = await approveRun(f.workspaceId, f.syncId, held.run.id, "Ada");
    expect(approved.status).toBe("queued");
    expect(await executeRun(held.run.id)).toBe("success");
    const done = await reloadRun(held.run.id);
    expect(done).toMatchObject({ status: "success", approvedBy: "Ada", error: null, attempts: 1 });
    // It went on with the approved plan beside its own; its own keys are not kept (only a held plan's are).
    expect(done.plan).toMatchObject({ counts: { delete: 95 }, approval: { counts: { delete: 95 }, changes: { delete: { count: 95 } } } });
    expect(done.plan).not.toHaveProperty("changes");
    expect(recordCounts(await runRecords(held.run.id))).toEqual({ insert: 0, update: 0, delete: 95, skip: 0 });
    expect(await sql(destination.url, `SELECT id FROM ${f.table} ORDER BY id`)).toEqual([1, 2, 3, 4, 5].map((id) => ({ id })));

    // Approving again, or a run of another sync or workspace, is refused.
    await expect(approveRun(f.workspaceId, f.syncId, held.run.id, "Ada")).rejects.toBeInstanceOf(Conflict);
    await expect(approveRun(f.workspaceId + 999, f.syncId, held.run.id, "Ada")).rejects.toThrow(/not found/);
  });

  it("a canceled waiting run ends canceled and writes nothing", { timeout: 30_000 }, async () => {
    const f = await peopleSync(50, { sync: { detectDeletes: true } });
    expect((await run(f)).result).toBe("success");
    await sql(source.url, `DELETE FROM ${f.table} WHERE id <= 30`);
    const held = await run(f);
    expect(held.run.status).toBe("needs_approval");
    expect(held.run.error).toContain("would delete 30 of 50 tracked rows (60%), over the 20% limit");
    expect((held.run.plan as { samples?: { delete: unknown[] } }).samples?.delete).toHaveLength(5);
    const canceled = await cancelSync(f.workspaceId, f.syncId, "Grace");
    expect(canceled).toMatchObject({ id: held.run.id, status: "failed", error: CANCELED_ERROR, canceledBy: "Grace" });
    // Nobody will approve it: its sample rows (source rows) are dropped, its counts kept.
    const ended = (await reloadRun(held.run.id)).plan as Record<string, unknown>;
    expect(ended).not.toHaveProperty("samples");
    expect(ended).toMatchObject({ counts: { delete: 30 }, tracked: 50 });
    expect(runOutcome({ status: canceled.status, failed_rows: 0, error: canceled.error, canceled_by: canceled.canceledBy })).toBe("canceled");
    expect(await executeRun(held.run.id)).toBe("skipped");
    expect((await sql(destination.url, `SELECT count(*)::int AS n FROM ${f.table}`))[0].n).toBe(50);
    await expect(approveRun(f.workspaceId, f.syncId, held.run.id, "Ada")).rejects.toBeInstanceOf(Conflict);
    // The sync can run again (and is held again: the model still lost 60%).
    expect((await run(f)).result).toBe("needs_approval");
  });

  it("refuses an empty extract when the sync tracked rows, and honours limits turned off", { timeout: 30_000 }, async () => {
    const f = await peopleSync(20, { sync: { writeMode: "mirror", guard: { max_delete_percent: null } } });
    expect((await run(f)).result).toBe("success");
    await sql(source.url, `DELETE FROM ${f.table}`);
    const held = await run(f);
    expect(held.run.status).toBe("needs_approval");
    expect(held.run.error).toContain("would run on an empty extract (the model returned no rows while the sync tracks 20), which is refused");
    // The delete limit is off: only the empty extract is named.
    expect((held.run.plan as { exceeded: string[] }).exceeded).toHaveLength(1);
    await cancelSync(f.workspaceId, f.syncId, "Grace");

    await prisma().sync.update({ where: { id: f.syncId }, data: { guard: { max_delete_percent: null, refuse_empty_extract: false } } });
    const unguarded = await run(f);
    expect(unguarded.result).toBe("success");
    // No limit in force: the run does not plan.
    expect(unguarded.run.plan).toBeNull();
    expect(recordCounts(unguarded.records).delete).toBe(20);
  });

  it("an approval binds to the plan shown: emptied after approval, the run is held again and deletes nothing", { timeout: 30_000 }, async () => {
    const f = await peopleSync(10, { sync: { writeMode: "mirror" } });
    expect((await run(f)).result).toBe("success");
    await sql(source.url, `DELETE FROM ${f.table} WHERE id > 7`);
    const held = await run(f);
    expect(held.run.error).toContain("would delete 3 of 10 tracked rows (30%)");
    const shown = (held.run.plan as { planned_at: string }).planned_at;
    await sql(source.url, `DELETE FROM ${f.table}`);
    await approveRun(f.workspaceId, f.syncId, held.run.id, "Ada", shown);
    expect(await executeRun(held.run.id)).toBe("needs_approval");
    const again = await reloadRun(held.run.id);
    expect(again).toMatchObject({ status: "needs_approval", approvedBy: null });
    expect(again.error).toContain("the source changed after approval: the model returns no rows now, 7 when it was approved; 10 deletes now, 3 approved");
    expect(await runRecords(held.run.id)).toHaveLength(0);
    expect((await sql(destination.url, `SELECT count(*)::int AS n FROM ${f.table}`))[0].n).toBe(10);
    // The plan the approver saw is spent; the one shown now can be approved, and then it runs.
    await expect(approveRun(f.workspaceId, f.syncId, held.run.id, "Ada", shown)).rejects.toThrow(/held again with another plan/);
    await approveRun(f.workspaceId, f.syncId, held.run.id, "Ada", (again.plan as { planned_at: string }).planned_at);
    expect(await executeRun(held.run.id)).toBe("success");
    expect(recordCounts(await runRecords(held.run.id))).toEqual({ insert: 0, update: 0, delete: 10, skip: 0 });
  });

  it("the delete step checks again: a model emptied after the run planned (or after its approval) deletes nothing", { timeout: 30_000 }, async () => {
    const f = await peopleSync(10, { sync: { writeMode: "mirror" } });
    expect((await run(f)).result).toBe("success");
    // A run that planned while the model was whole (a resumed attempt does not plan again), then the model empties.
    const planned = await planSync(f.workspaceId, f.syncId, { sampleSize: 0 });
    const { samples: _samples, ...stored } = planned;
    await sql(source.url, `DELETE FROM ${f.table}`);
    const resumed = await triggerSync(f.workspaceId, f.syncId);
    await prisma().syncRun.update({ where: { id: resumed.id }, data: { plan: stored as object } });
    expect(await executeRun(resumed.id)).toBe("failed");
    const failed = await reloadRun(resumed.id);
    expect(failed.error).toBe(
      "Nothing was deleted: the model changed after the run planned: it would delete 10 of 10 tracked rows (100%), over the 20% limit; would delete every one of the 10 tracked rows (the model returned none of them), which is refused. Run the sync again: it plans again, and its limits hold it for approval if it still would.",
    );
    expect(await runRecords(resumed.id)).toHaveLength(0);
    expect((await sql(destination.url, `SELECT count(*)::int AS n FROM ${f.table}`))[0].n).toBe(10);

    // Approved for 3 deletes, planned again within them, then emptied before its deletes: none made.
    await sql(source.url, `INSERT INTO ${f.table} (id, name, email, score, updated_at) SELECT id, name, email, score, updated_at FROM (SELECT g AS id, 'Person ' || g AS name, 'p' || g || '@example.com' AS email, g % 100 AS score, timestamptz '2026-01-01' + g * interval '1 second' AS updated_at FROM generate_series(1, 7) g) x`);
    const approvedFor3 = await planSync(f.workspaceId, f.syncId, { sampleSize: 0 });
    expect(approvedFor3.counts.delete).toBe(3);
    const { samples: _s, ...three } = approvedFor3;
    await sql(source.url, `DELETE FROM ${f.table}`);
    const approved = await triggerSync(f.workspaceId, f.syncId);
    const approval = { planned_at: three.planned_at, counts: three.counts, tracked: three.tracked, full_read: three.full_read, changes: three.changes };
    await prisma().syncRun.update({ where: { id: approved.id }, data: { plan: { ...three, approval } as object, approvedBy: "Ada" } });
    expect(await executeRun(approved.id)).toBe("failed");
    expect((await reloadRun(approved.id)).error).toBe(
      "Nothing was deleted: the source changed after approval: 10 deletes now, 3 approved. Run the sync again: it plans again, and its limits hold it for approval if it still would.",
    );
    expect((await sql(destination.url, `SELECT count(*)::int AS n FROM ${f.table}`))[0].n).toBe(10);
  });

  /**
   * Holds a run of a sync tracking 10 rows that updates `ids`, approves it, and stores the plan its
   * guard step would keep going on (as a resumed attempt finds it): the run does not plan again.
   */
  const approvedFor = async (f: Fixture & { table: string }, ids: number[]) => {
    await sql(source.url, `UPDATE ${f.table} SET score = score + 1 WHERE id IN (${ids.join(", ")})`);
    const held = await run(f);
    expect(held.run.error).toContain(`would change ${ids.length} of 10 tracked rows`);
    const shown = held.run.plan as { planned_at: string; counts: object; tracked: number; full_read: boolean };
    await approveRun(f.workspaceId, f.syncId, held.run.id, "Ada", shown.planned_at);
    const { approval } = (await reloadRun(held.run.id)).plan as { approval: object };
    const replanned = { planned_at: new Date().toISOString(), counts: shown.counts, tracked: shown.tracked, full_read: shown.full_read, approval };
    await prisma().syncRun.update({ where: { id: held.run.id }, data: { plan: replanned as object } });
    return held.run.id;
  };

  for (const path of PATHS) {
    it(`${path} path: an approved run writes only the updates approved, also when it does not plan again`, { timeout: 30_000 }, async () => {
      linesOff(path);
      const f = await peopleSync(10, { ...pathOptions(path), sync: { guard: { max_change_percent: 10 } } });
      expect((await run(f)).result).toBe("success");
      const nameOf = async (id: number) => ((await sql(destination.url, `SELECT name FROM ${f.table} WHERE id = ${id}`)) as { name: string }[])[0].name;

      // The approved updates, as approved: they go through.
      const same = await approvedFor(f, [1, 2]);
      expect(await executeRun(same)).toBe("success");
      expect(recordCounts(await runRecords(same))).toEqual({ insert: 0, update: 2, delete: 0, skip: 0 });
      // The run took the path this case is about.
      expect(readPath(await reloadRun(same))).toBe(READ_PATH[path]);

      // Approved for rows 3 and 4; then the source changes row 5 too, after the plan and before the read.
      const other = await approvedFor(f, [3, 4]);
      await sql(source.url, `UPDATE ${f.table} SET name = 'Not approved' WHERE id = 5`);
      expect(await executeRun(other)).toBe("failed");
      expect((await reloadRun(other)).error).toBe(
        'Nothing more was written: the source changed after approval: it would update row "5" the approved plan did not. Run the sync again: it plans again, and its limits hold it for approval if it still would.',
      );
      expect(await runRecords(other)).toHaveLength(0);
      expect(await nameOf(5)).toBe(path !== "COPY text" ? "PERSON 5" : "Person 5");
    });
  }

  it("update mode: an approved run does not update a row new to the sync that the destination already has", { timeout: 30_000 }, async () => {
    const f = await peopleSync(10, { json: true, sync: { writeMode: "update", guard: { max_change_percent: 10 } } });
    // The destination holds rows 1–11 already (11 is someone else's); the sync updates 1–10.
    await sql(destination.url, `INSERT INTO ${f.table} (id, name, email, score) SELECT g, 'Theirs ' || g, 't' || g || '@example.com', 0 FROM generate_series(1, 11) g`);
    expect((await run(f)).result).toBe("success");
    const approved = await approvedFor(f, [1, 2]);
    // Row 11 joins the model: new to the sync (the diff says insert), but update mode would update it there.
    await sql(source.url, `INSERT INTO ${f.table} VALUES (11, 'Not approved', 'n@x.io', 1, now())`);
    expect(await executeRun(approved)).toBe("failed");
    expect((await reloadRun(approved)).error).toContain('it would update row "11" the approved plan did not');
    expect(await sql(destination.url, `SELECT name FROM ${f.table} WHERE id = 11`)).toEqual([{ name: "Theirs 11" }]);
  });

  it("a change limit holds a sync that never deletes", { timeout: 30_000 }, async () => {
    const f = await peopleSync(40, { sync: { guard: { max_change_percent: 10 } } });
    const first = await run(f);
    // A first sync changes nothing it wrote before: inserts never trip a percentage, so it does not
    // plan (a plan is a whole read of the model before the run's own).
    expect(first.result).toBe("success");
    expect(first.run.plan).toBeNull();
    expect(recordCounts(first.records).insert).toBe(40);
    await sql(source.url, `UPDATE ${f.table} SET score = score + 1 WHERE id <= 8`);
    const held = await run(f);
    expect(held.run.error).toContain("would change 8 of 40 tracked rows (20%: 8 updates, 0 deletes), over the 10% limit");
  });

  it("a first run still plans when a row limit is in force (it counts from the first run on)", { timeout: 30_000 }, async () => {
    const f = await peopleSync(12, { sync: { guard: { max_change_percent: 10, max_change_rows: 5 } } });
    const first = await run(f);
    expect(first.result).toBe("success");
    expect(first.run.plan).toMatchObject({ counts: { insert: 12 }, tracked: 0, exceeded: [] });
  });
});

// The pass-through path (COPY text from a PostgreSQL source straight into a PostgreSQL destination)
// against the JSON path on the same rows: the same destination rows, the same records, the same
// counters; when it is taken and when not; and a refused batch falling back to per-row outcomes.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { postgresqlDestination } from "@/lib/connectors/postgresql/destination";
import { postgresqlTextRows } from "@/lib/connectors/postgresql/text-rows";
import { LineBatch } from "@/lib/db/pg-wire/line-batch";
import { sharedBuffers } from "@/lib/db/pg-wire/shared-buffers";
import { copyEscape, copyUnescape } from "@/lib/db/pg-wire/text-copy";
import { createScratchDatabase, useTestDatabase } from "@/tests/support/db";
import { executeRun } from "../execute-run";
import { planSync, stopEngine, triggerSync } from "../index";
import { catalogOf, createFixture, pgConnectorConfig, readPath, recordsByKey, reloadRun, runCounters, runRecords, sql, tableStream, type Fixture } from "../test-support";

useTestDatabase();

let source: { url: string; drop(): Promise<void> };
let destination: { url: string; drop(): Promise<void> };

const COLUMNS = `id bigint PRIMARY KEY, small smallint, n integer, big bigint, amount numeric, ratio double precision, r real,
  flag boolean, day date, at timestamp, at_tz timestamptz, uid uuid, label text, code varchar(40), ch char(3)`;
const NAMES = ["id", "small", "n", "big", "amount", "ratio", "r", "flag", "day", "at", "at_tz", "uid", "label", "code", "ch"];
const STANDARD = NAMES.map((c) => ({ from: c, to: c, mapping_type: "standard" }));

beforeAll(async () => {
  source = await createScratchDatabase("ds_pt_src");
  destination = await createScratchDatabase("ds_pt_dst");
  await sql(source.url, `CREATE TABLE kinds (${COLUMNS})`);
  // Text that COPY escapes (tab, newline, backslash, CR), non-ASCII, empty strings, nulls, integers
  // past 2^53, non-finite floats, timestamps to the millisecond (the JSON path keeps milliseconds).
  await sql(
    source.url,
    `INSERT INTO kinds VALUES
      (1, 1, 10, 9007199254740993, 12.50, 0.1, 1.1, true, '2026-01-02', '2026-01-02 03:04:05.678', '2026-01-02 03:04:05.678+02',
       'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', E'tab\\there\\nnew line\\\\ back\\rslash', 'ünïcødé ✓', 'ab'),
      (2, -5, -10, -1, -0.001, 'NaN', '-Infinity', false, '1999-12-31', '1999-12-31 23:59:59', '1999-12-31 23:59:59+00', NULL, '', '', ''),
      (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
      (4, 32767, 2147483647, 9223372036854775807, 1e20, 1e300, 3.4e38, true, '2026-06-30', '2026-06-30 12:00:00', '2026-06-30 12:00:00-07', NULL, E'\\\\N', 'x', 'xyz')`,
  );
  await sql(source.url, "INSERT INTO kinds (id, label) SELECT g, 'row ' || g FROM generate_series(5, 2500) g");
  for (const table of ["kinds_text", "kinds_json"]) await sql(destination.url, `CREATE TABLE ${table} (${COLUMNS})`);
});

afterEach(() => {
  delete process.env.ENGINE_PASS_THROUGH;
  delete process.env.ENGINE_BATCH_SIZE;
});

afterAll(async () => {
  await stopEngine();
  await source?.drop();
  await destination?.drop();
});

async function run(f: Fixture) {
  const created = await triggerSync(f.workspaceId, f.syncId);
  const result = await executeRun(created.id);
  const r = await reloadRun(created.id);
  return { result, run: r, passedThrough: readPath(r) === "pass-through", path: readPath(r), records: await runRecords(created.id) };
}

function fixture(table: string, options: { configuration?: unknown; query?: string; rate?: number } = {}) {
  return createFixture({
    sourceUrl: source.url,
    destination: {
      connectorName: "Postgresql",
      config: pgConnectorConfig(destination.url),
      catalog: catalogOf(tableStream(table), options.rate ? { request_rate_limit: options.rate } : {}),
    },
    query: options.query ?? `SELECT ${NAMES.join(", ")} FROM kinds`,
    sync: { configuration: options.configuration ?? STANDARD },
  });
}

describe("COPY text fields", () => {
  it("unescape what COPY escapes, and \\N is null", () => {
    for (const text of ["plain", "tab\there", "new\nline", "cr\rhere", "back\\slash", "\\N", "", "ünï ✓"]) {
      expect(copyUnescape(copyEscape(text))).toBe(text);
    }
    expect(copyUnescape("\\N")).toBeNull();
    expect(copyUnescape("a\\bb\\fc\\vd\\101\\x42")).toBe("a\bb\fc\vdAB");
  });
});

describe("the COPY text read", () => {
  it("inlines a saved cursor as a quoted literal: a value written to break out of it only filters", async () => {
    // The cursor comes from the source's own data, so a row can carry any text into it.
    const hostile = "row 2499'; DROP TABLE kinds; --\\";
    const lines: string[] = [];
    for await (const batch of postgresqlTextRows.read(pgConnectorConfig(source.url), {
      query: `SELECT ${NAMES.join(", ")} FROM kinds`,
      batchSize: 1000,
      cursorField: "label",
      cursorValue: hostile,
    })) lines.push(...batch);
    const labels = lines.map((l) => copyUnescape(l.split("\t")[12]));
    expect(labels.length).toBeGreaterThan(0);
    expect(labels.every((label) => label !== null && label >= hostile)).toBe(true);
    expect(await sql(source.url, "SELECT count(*)::int AS n FROM kinds")).toEqual([{ n: 2500 }]);
  });
});

describe("pass-through against the JSON path", () => {
  it("writes the same destination rows, records and counters, first run and re-runs", async () => {
    const text = await fixture("kinds_text");
    const json = await fixture("kinds_json");
    const a = await run(text);
    process.env.ENGINE_PASS_THROUGH = "0";
    const b = await run(json);
    expect([a.passedThrough, b.passedThrough]).toEqual([true, false]);
    expect([a.result, b.result]).toEqual(["success", "success"]);
    expect(runCounters(a.run)).toEqual({ totalQueryRows: 2500, totalRows: 2500, successfulRows: 2500, failedRows: 0, skippedRows: 0 });
    expect(runCounters(a.run)).toEqual(runCounters(b.run));
    const rows = (table: string) => sql(destination.url, `SELECT ${NAMES.map((c) => `${c}::text`).join(", ")} FROM ${table} ORDER BY ${table}.id`);
    const [passed, parsed] = [await rows("kinds_text"), await rows("kinds_json")];
    // NaN and the infinities arrive on both paths (the JSON path carries them as text, issue 33).
    expect([passed[1].ratio, passed[1].r, parsed[1].ratio, parsed[1].r]).toEqual(["NaN", "-Infinity", "NaN", "-Infinity"]);
    expect(passed).toEqual(parsed);
    // Records read back from the line equal the JSON path's records, value for value.
    expect(recordsByKey(a.records)).toEqual(recordsByKey(b.records));
    expect(a.records.find((r) => r.primaryKey === "1")?.record).toMatchObject({
      big: "9007199254740993",
      amount: "12.50",
      at_tz: "2026-01-02T01:04:05.678Z",
      label: "tab\there\nnew line\\ back\rslash",
    });

    // No change: nothing sent on either path.
    delete process.env.ENGINE_PASS_THROUGH;
    const again = await run(text);
    expect(again.passedThrough).toBe(true);
    expect(runCounters(again.run)).toMatchObject({ totalQueryRows: 2500, totalRows: 0, skippedRows: 2500 });

    // A change of a value and of escaped text: exactly those rows, as updates.
    await sql(source.url, "UPDATE kinds SET label = E'changed\\tagain' WHERE id IN (1, 7, 2500)");
    await sql(source.url, "INSERT INTO kinds (id, label) VALUES (2501, 'new')");
    const changed = await run(text);
    expect(runCounters(changed.run)).toMatchObject({ totalRows: 4, successfulRows: 4, skippedRows: 2497 });
    expect(changed.records.map((r) => [r.primaryKey, r.action]).sort()).toEqual([
      ["1", "destination_update"],
      ["2500", "destination_update"],
      ["2501", "destination_insert"],
      ["7", "destination_update"],
    ]);
    expect(await sql(destination.url, "SELECT label FROM kinds_text WHERE id = 7")).toEqual([{ label: "changed\tagain" }]);
    await sql(source.url, "UPDATE kinds SET label = 'row ' || id WHERE id IN (7, 2500); DELETE FROM kinds WHERE id = 2501");
  });

  it("picks a subset of the fields, in another order and under other names, as the JSON path maps them", async () => {
    const picked = "id bigint PRIMARY KEY, title text, at_tz timestamptz, amount numeric";
    for (const table of ["picked_text", "picked_json"]) await sql(destination.url, `CREATE TABLE ${table} (${picked})`);
    // Source fields 12, 0, 10, 4 of 15: neither the whole line nor in its order.
    const configuration = [
      { from: "label", to: "title", mapping_type: "standard" },
      { from: "id", to: "id", mapping_type: "standard" },
      { from: "at_tz", to: "at_tz", mapping_type: "standard" },
      { from: "amount", to: "amount", mapping_type: "standard" },
    ];
    // Every batch taken as lines: a refused one would be sent again by the JSON path and arrive all the same.
    const upsert = vi.spyOn(postgresqlDestination.textRows!, "upsert");
    const a = await run(await fixture("picked_text", { configuration }));
    const answers = await Promise.all(upsert.mock.results.map((r) => r.value as Promise<{ ok: boolean }>));
    upsert.mockRestore();
    expect(answers.length).toBeGreaterThan(0);
    expect(answers.every((answer) => answer.ok)).toBe(true);
    process.env.ENGINE_PASS_THROUGH = "0";
    const b = await run(await fixture("picked_json", { configuration }));
    expect([a.path, b.path, a.result, b.result]).toEqual(["pass-through", "rows", "success", "success"]);
    const rows = (table: string) => sql(destination.url, `SELECT id::text, title, at_tz::text, amount::text FROM ${table} ORDER BY ${table}.id`);
    const [passed, parsed] = [await rows("picked_text"), await rows("picked_json")];
    expect(passed).toHaveLength(2500);
    expect(passed[3]).toEqual({ id: "4", title: "\\N", at_tz: "2026-06-30 19:00:00+00", amount: "100000000000000000000" });
    expect(passed).toEqual(parsed);
  });

  it("sends a re-run's few changed rows of many batches together, on both paths, with exact counters and records", async () => {
    // Batches of 100 rows (200 lines on the pass-through path); three changed rows in three of them
    // (send-groups.ts holds them together).
    process.env.ENGINE_BATCH_SIZE = "100";
    for (const [table, passThrough] of [
      ["kinds_sparse_text", true],
      ["kinds_sparse_json", false],
    ] as const) {
      await sql(destination.url, `CREATE TABLE ${table} (${COLUMNS})`);
      process.env.ENGINE_PASS_THROUGH = passThrough ? "1" : "0";
      const f = await fixture(table);
      const first = await run(f);
      expect(first.passedThrough).toBe(passThrough);
      expect(runCounters(first.run)).toEqual({ totalQueryRows: 2500, totalRows: 2500, successfulRows: 2500, failedRows: 0, skippedRows: 0 });
      await sql(source.url, "UPDATE kinds SET label = 'sparse ' || id WHERE id IN (10, 1010, 2410)");
      const changed = await run(f);
      await sql(source.url, "UPDATE kinds SET label = 'row ' || id WHERE id IN (10, 1010, 2410)");
      expect(changed.result).toBe("success");
      expect(runCounters(changed.run)).toEqual({ totalQueryRows: 2500, totalRows: 3, successfulRows: 3, failedRows: 0, skippedRows: 2497 });
      expect(changed.records.map((r) => [r.primaryKey, r.action, r.status]).sort()).toEqual([
        ["10", "destination_update", "success"],
        ["1010", "destination_update", "success"],
        ["2410", "destination_update", "success"],
      ]);
      expect(await sql(destination.url, `SELECT id::int, label FROM ${table} WHERE label LIKE 'sparse%' ORDER BY id`)).toEqual([
        { id: 10, label: "sparse 10" },
        { id: 1010, label: "sparse 1010" },
        { id: 2410, label: "sparse 2410" },
      ]);
    }
  });

  it("batches that reuse one another's shared buffers record what they sent; a refused batch's buffers are never reused", async () => {
    // Batches of 200 lines: each takes the buffers an earlier one gave back once it was recorded.
    process.env.ENGINE_BATCH_SIZE = "100";
    await sql(destination.url, `CREATE TABLE kinds_reused (${COLUMNS}); CREATE TABLE kinds_reused_json (${COLUMNS})`);
    await sql(destination.url, `CREATE TABLE kinds_reused_checked (${COLUMNS}, CHECK (n IS NULL OR n > 0))`);
    const release = vi.spyOn(LineBatch.prototype, "release");
    const pin = vi.spyOn(LineBatch.prototype, "pin");
    try {
      const text = await run(await fixture("kinds_reused"));
      expect(text.passedThrough).toBe(true);
      expect(release.mock.calls.length).toBeGreaterThanOrEqual(13);
      expect(sharedBuffers.keptCount()).toBeGreaterThan(0);
      process.env.ENGINE_PASS_THROUGH = "0";
      const json = await run(await fixture("kinds_reused_json"));
      expect(recordsByKey(text.records)).toEqual(recordsByKey(json.records));
      delete process.env.ENGINE_PASS_THROUGH;
      expect(pin).not.toHaveBeenCalled();
      // The batch holding row 2 is refused: its buffers stay with it, the other batches' come back.
      const checked = await run(await fixture("kinds_reused_checked"));
      expect(runCounters(checked.run)).toMatchObject({ totalRows: 2500, successfulRows: 2499, failedRows: 1 });
      expect(new Set(pin.mock.contexts).size).toBe(1);
    } finally {
      release.mockRestore();
      pin.mockRestore();
    }
  });

  it("computes templates, static values and columns whose text differs into the lines; nested paths and rate limits map them instead", async () => {
    const cases = [
      { path: "pass-through", configuration: [...STANDARD.slice(1), { from: "{{ id }}", to: "id", mapping_type: "template" }] },
      { path: "pass-through", configuration: [...STANDARD.filter((m) => m.to !== "label"), { from: "fixed", to: "label", mapping_type: "static" }] },
      { path: "mapped lines", configuration: [...STANDARD.filter((m) => m.to !== "label"), { from: "label", to: "label.inner", mapping_type: "standard" }] },
      { path: "mapped lines", rate: 1000 },
      // numeric into text: the JSON path writes the parsed value's text, not the database's: computed.
      { path: "pass-through", configuration: [{ from: "id", to: "id", mapping_type: "standard" }, { from: "amount", to: "label", mapping_type: "standard" }] },
    ];
    for (const { path, ...options } of cases) {
      await sql(destination.url, "TRUNCATE kinds_json");
      const f = await fixture("kinds_json", options);
      const r = await run(f);
      expect(r.path, JSON.stringify(options)).toBe(path);
      if (path === "pass-through") expect(r.run.failedRows, JSON.stringify(options)).toBe(0);
    }
    // The computed text is the JSON path's: 12.50 arrives as the parsed value's text.
    expect(await sql(destination.url, "SELECT label FROM kinds_json WHERE id = 1")).toEqual([{ label: "12.50" }]);
  });

  it("reads lines bound for the destination in batches of ENGINE_TEXT_BATCH_SIZE (twice ENGINE_BATCH_SIZE unless set), of 8 MiB of text at most, as a plan does; mapped lines in rows' batches", async () => {
    process.env.ENGINE_BATCH_SIZE = "100";
    const read = vi.spyOn(postgresqlTextRows, "read");
    const upsert = vi.spyOn(postgresqlDestination.textRows!, "upsert");
    try {
      const sizes = async (table: string, options: { rate?: number } = {}) => {
        await sql(destination.url, `CREATE TABLE ${table} (${COLUMNS})`);
        read.mockClear();
        upsert.mockClear();
        const r = await run(await fixture(table, options));
        expect(runCounters(r.run)).toMatchObject({ totalRows: 2500, successfulRows: 2500, failedRows: 0 });
        return { path: r.path, read: read.mock.calls.map(([, o]) => [o.batchSize, o.batchChars]), lines: upsert.mock.calls.map(([, , , lines]) => lines.count) };
      };
      const doubled = await sizes("kinds_batch_default");
      expect(doubled).toEqual({ path: "pass-through", read: [[200, 8 * 1024 * 1024]], lines: [...Array<number>(12).fill(200), 100] });
      // A dry run's plan bounds its batches' text too.
      const planned = await fixture("kinds_batch_default");
      read.mockClear();
      expect((await planSync(planned.workspaceId, planned.syncId, { sampleSize: 1 })).counts).toMatchObject({ read: 2500, insert: 2500 });
      expect(read.mock.calls.map(([, o]) => o.batchChars)).toEqual([8 * 1024 * 1024]);
      process.env.ENGINE_TEXT_BATCH_SIZE = "1000";
      expect(await sizes("kinds_batch_set")).toEqual({ path: "pass-through", read: [[1000, 8 * 1024 * 1024]], lines: [1000, 1000, 500] });
      // A rate limit maps the lines into rows for the JSON path (the case above).
      expect(await sizes("kinds_batch_mapped", { rate: 1000 })).toEqual({ path: "mapped lines", read: [[100, undefined]], lines: [] });
    } finally {
      delete process.env.ENGINE_TEXT_BATCH_SIZE;
      read.mockRestore();
      upsert.mockRestore();
    }
  });

  it("a first sync into a table that already holds some keys updates them (plain insert first, merge on a conflict)", async () => {
    await sql(destination.url, `CREATE TABLE kinds_existing (${COLUMNS})`);
    await sql(destination.url, "INSERT INTO kinds_existing (id, label) VALUES (2000, 'stale'), (2400, 'stale')");
    const f = await fixture("kinds_existing");
    const r = await run(f);
    expect(r.passedThrough).toBe(true);
    expect(runCounters(r.run)).toMatchObject({ totalRows: 2500, successfulRows: 2500, failedRows: 0 });
    expect(await sql(destination.url, "SELECT count(*)::int AS n, count(*) FILTER (WHERE label = 'stale')::int AS stale FROM kinds_existing")).toEqual([
      { n: 2500, stale: 0 },
    ]);
    expect(await sql(destination.url, "SELECT label FROM kinds_existing WHERE id = 2400")).toEqual([{ label: "row 2400" }]);
  });

  it("a batch the destination refuses falls back to per-row outcomes: only the bad row fails", async () => {
    await sql(destination.url, `CREATE TABLE kinds_checked (${COLUMNS}, CHECK (n IS NULL OR n > 0))`);
    const f = await fixture("kinds_checked");
    const r = await run(f);
    expect(r.passedThrough).toBe(true);
    expect(r.run.error).toBeNull();
    expect(runCounters(r.run)).toEqual({ totalQueryRows: 2500, totalRows: 2500, successfulRows: 2499, failedRows: 1, skippedRows: 0 });
    const failed = r.records.filter((x) => x.status === "failed");
    expect(failed.map((x) => x.primaryKey)).toEqual(["2"]);
    expect(failed[0].error).toMatch(/check constraint/i);
    expect(await sql(destination.url, "SELECT count(*)::int AS n FROM kinds_checked")).toEqual([{ n: 2499 }]);
  });
});

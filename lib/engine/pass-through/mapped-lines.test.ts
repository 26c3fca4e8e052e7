// Lines whose mapping is more than plain columns (pass-through/plan.ts): passed through with the
// template's and the static value's columns computed into each line, or, where the destination, the
// write mode or a rate limit rules that out (here a rate limit), mapped lines: read, hashed and
// recorded as lines, decoded only to be sent through write(). Each against the JSON path on the same
// rows: the same destination rows, records and counters. And the rule that keeps an existing sync's
// fingerprints: a sync whose states the JSON path wrote stays on it.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { encryptJson } from "@/lib/crypto/encryption";
import { prisma } from "@/lib/db/client";
import { createScratchDatabase, useTestDatabase } from "@/tests/support/db";
import { loadRunContext } from "../context";
import { executeRun } from "../execute-run";
import { stopEngine, triggerSync } from "../index";
import { catalogOf, createFixture, pgConnectorConfig, readPath, recordsByKey, reloadRun, runCounters, runRecords, sql, tableStream, type Fixture } from "../test-support";
import { planPassThrough } from "./plan";

useTestDatabase();

let source: { url: string; drop(): Promise<void> };
let destination: { url: string; drop(): Promise<void> };

const COLUMNS = "id bigint PRIMARY KEY, label text, amount numeric, at timestamptz, doc jsonb, ratio double precision";
const QUERY = "SELECT id, label, amount, at, doc, ratio FROM people";
/** A template and a static value: never a pass-through. */
const MAPPING = [
  { from: "id", to: "id", mapping_type: "standard" },
  { from: "{{ label | upcase }}", to: "label", mapping_type: "template" },
  { from: "amount", to: "amount", mapping_type: "standard" },
  { from: "at", to: "at", mapping_type: "standard" },
  { from: "doc", to: "doc", mapping_type: "standard" },
  { from: "ratio", to: "ratio", mapping_type: "standard" },
  { from: "mapped", to: "note", mapping_type: "static" },
];
const ROWS = 1200;

beforeAll(async () => {
  source = await createScratchDatabase("ds_ml_src");
  destination = await createScratchDatabase("ds_ml_dst");
  await sql(source.url, `CREATE TABLE people (${COLUMNS})`);
  // Text COPY escapes, non-ASCII, exact decimals, sub-millisecond timestamps, JSON, non-finite floats, nulls.
  await sql(
    source.url,
    `INSERT INTO people VALUES
      (1, E'tab\\there\\nline\\\\slash', 12.50, '2026-01-02 03:04:05.678901+02', '{"big": 12345678901234567890}', 'NaN'),
      (2, 'ünïcødé ✓', -0.001, NULL, '[1, "two", null]', '-Infinity'),
      (3, NULL, NULL, NULL, NULL, NULL)`,
  );
  await sql(source.url, `INSERT INTO people (id, label, amount) SELECT g, 'person ' || g, round(g / 100.0, 2) FROM generate_series(4, ${ROWS}) g`);
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

let tables = 0;

/** The two ways lines with a template are sent; a rate limit (far above what a test sends) rules out pass-through. */
const WAYS = [
  { path: "pass-through", title: "passed through, the template's and static value's columns computed", rate: undefined },
  { path: "mapped lines", title: "mapped lines (a rate limit)", rate: 1_000_000 },
] as const;

async function peopleSync(options: { rate?: number; query?: string; configuration?: unknown; columns?: string } = {}): Promise<Fixture & { table: string }> {
  const table = `people_${++tables}`;
  await sql(destination.url, `CREATE TABLE ${table} (${COLUMNS}, note text${options.columns ?? ""})`);
  const catalog = catalogOf(tableStream(table), options.rate ? { request_rate_limit: options.rate } : {});
  const f = await createFixture({
    sourceUrl: source.url,
    destination: { connectorName: "Postgresql", config: pgConnectorConfig(destination.url), catalog },
    query: options.query ?? QUERY,
    sync: { configuration: options.configuration ?? MAPPING },
  });
  return { ...f, table };
}

async function run(f: Fixture) {
  const created = await triggerSync(f.workspaceId, f.syncId);
  const result = await executeRun(created.id);
  const r = await reloadRun(created.id);
  return { result, run: r, path: readPath(r), records: await runRecords(created.id) };
}

const destinationRows = (table: string) =>
  sql(destination.url, `SELECT id::text, label, amount::text, at::text, doc::text, ratio::text, note FROM ${table} ORDER BY id`);

describe.each(WAYS)("$title, against the JSON path", ({ path, rate }) => {
  it("write the same rows, records and counters; a re-run sends nothing, a change exactly itself", async () => {
    process.env.ENGINE_BATCH_SIZE = "500";
    const lines = await peopleSync({ rate });
    const rows = await peopleSync({ rate });
    const a = await run(lines);
    process.env.ENGINE_PASS_THROUGH = "0";
    const b = await run(rows);
    delete process.env.ENGINE_PASS_THROUGH;
    expect([a.path, b.path]).toEqual([path, "rows"]);
    expect([a.result, b.result]).toEqual(["success", "success"]);
    expect(runCounters(a.run)).toEqual({ totalQueryRows: ROWS, totalRows: ROWS, successfulRows: ROWS, failedRows: 0, skippedRows: 0 });
    expect(runCounters(a.run)).toEqual(runCounters(b.run));
    const [mapped, parsed] = [await destinationRows(lines.table), await destinationRows(rows.table)];
    expect(mapped).toEqual(parsed);
    expect(mapped[0]).toMatchObject({ label: "TAB\tHERE\nLINE\\SLASH", amount: "12.50", doc: '{"big": 12345678901234567890}', ratio: "NaN", note: "mapped" });
    // Records read back from the lines equal the JSON path's, value for value.
    expect(recordsByKey(a.records)).toEqual(recordsByKey(b.records));

    const again = await run(lines);
    expect(again.path).toBe(path);
    expect(runCounters(again.run)).toEqual({ totalQueryRows: ROWS, totalRows: 0, successfulRows: 0, failedRows: 0, skippedRows: ROWS });

    await sql(source.url, "UPDATE people SET label = 'renamed' WHERE id IN (2, 700)");
    await sql(source.url, "INSERT INTO people (id, label) VALUES (5000, 'new')");
    const changed = await run(lines);
    await sql(source.url, "UPDATE people SET label = 'person ' || id WHERE id = 700; UPDATE people SET label = 'ünïcødé ✓' WHERE id = 2; DELETE FROM people WHERE id = 5000");
    expect(runCounters(changed.run)).toMatchObject({ totalRows: 3, successfulRows: 3, skippedRows: ROWS - 2 });
    expect(changed.records.map((r) => [r.primaryKey, r.action]).sort()).toEqual([
      ["2", "destination_update"],
      ["5000", "destination_insert"],
      ["700", "destination_update"],
    ]);
    expect(await sql(destination.url, `SELECT label FROM ${lines.table} WHERE id IN (2, 5000) ORDER BY id`)).toEqual([{ label: "RENAMED" }, { label: "NEW" }]);
  });

  it("a template reading columns of several types, a static value and a column of another type: as the JSON path writes them", async () => {
    // Pass-through decodes only the fields its computed columns read (plan.ts composeReads): here
    // amount, at, doc and ratio, never label; `id` goes to a text column, so it is computed too.
    const configuration = [
      { from: "id", to: "id", mapping_type: "standard" },
      { from: "{{ amount }}|{{ at }}|{{ doc.big }}|{{ ratio | append: '!' }}", to: "label", mapping_type: "template" },
      { from: "id", to: "code", mapping_type: "standard" },
      { from: "fixed", to: "note", mapping_type: "static" },
    ];
    const [lines, rows] = [await peopleSync({ rate, configuration, columns: ", code text" }), await peopleSync({ rate, configuration, columns: ", code text" })];
    const a = await run(lines);
    process.env.ENGINE_PASS_THROUGH = "0";
    const b = await run(rows);
    delete process.env.ENGINE_PASS_THROUGH;
    expect([a.path, b.path, a.result, b.result]).toEqual([path, "rows", "success", "success"]);
    const written = (table: string) => sql(destination.url, `SELECT id, label, code, note FROM ${table} ORDER BY id`);
    const mapped = await written(lines.table);
    expect(mapped).toEqual(await written(rows.table));
    expect(mapped.slice(0, 3)).toEqual([
      { id: "1", label: "12.50|2026-01-02T01:04:05.678901Z|12345678901234567890|NaN!", code: "1", note: "fixed" },
      { id: "2", label: "-0.001|||-Infinity!", code: "2", note: "fixed" },
      { id: "3", label: "|||!", code: "3", note: "fixed" },
    ]);
    expect(recordsByKey(a.records)).toEqual(recordsByKey(b.records));
  });

  it("a first sync into a table holding some of the keys updates them (a plain COPY first, a merge on the conflict)", async () => {
    process.env.ENGINE_BATCH_SIZE = "300";
    const f = await peopleSync({ rate });
    await sql(destination.url, `INSERT INTO ${f.table} (id, label, note) VALUES (900, 'stale', 'theirs'), (1100, 'stale', 'theirs')`);
    const r = await run(f);
    expect(r.path).toBe(path);
    expect(runCounters(r.run)).toEqual({ totalQueryRows: ROWS, totalRows: ROWS, successfulRows: ROWS, failedRows: 0, skippedRows: 0 });
    expect(await sql(destination.url, `SELECT count(*)::int AS n, count(*) FILTER (WHERE note = 'theirs')::int AS theirs FROM ${f.table}`)).toEqual([
      { n: ROWS, theirs: 0 },
    ]);
    expect(await sql(destination.url, `SELECT label FROM ${f.table} WHERE id IN (899, 900, 1100) ORDER BY id`)).toEqual([
      { label: "PERSON 899" },
      { label: "PERSON 900" },
      { label: "PERSON 1100" },
    ]);
  });

  it("a row the destination refuses fails alone, recorded with its row", async () => {
    const f = await peopleSync({ rate });
    await sql(destination.url, `ALTER TABLE ${f.table} ADD CHECK (id <> 17)`);
    const r = await run(f);
    expect(r.path).toBe(path);
    expect(runCounters(r.run)).toEqual({ totalQueryRows: ROWS, totalRows: ROWS, successfulRows: ROWS - 1, failedRows: 1, skippedRows: 0 });
    const failed = r.records.filter((x) => x.status === "failed");
    expect(failed.map((x) => [x.primaryKey, x.record])).toEqual([["17", { id: 17, label: "person 17", amount: "0.17", at: null, doc: null, ratio: null }]]);
    expect(failed[0].error).toMatch(/check constraint/i);
  });

  it("a row its template cannot map fails alone with the template's error, never sent", async () => {
    const f = await peopleSync({
      rate,
      query: "SELECT id, CASE WHEN id = 17 THEN 'seventeen' ELSE id::text END AS label FROM people",
      configuration: [
        { from: "id", to: "id", mapping_type: "standard" },
        { from: "label", to: "label", mapping_type: "standard" },
        { from: "{{ label | cast: 'number' }}", to: "amount", mapping_type: "template" },
      ],
    });
    const r = await run(f);
    expect(r.path).toBe(path);
    expect(runCounters(r.run)).toEqual({ totalQueryRows: ROWS, totalRows: ROWS, successfulRows: ROWS - 1, failedRows: 1, skippedRows: 0 });
    const failed = r.records.filter((x) => x.status === "failed");
    expect(failed.map((x) => [x.primaryKey, x.record])).toEqual([["17", { id: 17, label: "seventeen" }]]);
    expect(failed[0].error).toMatch(/cast: .*seventeen.* is not a number/);
    expect(await sql(destination.url, `SELECT count(*)::int AS n, count(*) FILTER (WHERE amount = id)::int AS cast FROM ${f.table}`)).toEqual([{ n: ROWS - 1, cast: ROWS - 1 }]);
  });
});

describe("which sync reads lines", () => {
  it("a sync whose states the JSON path wrote stays on it, so no row is sent again", async () => {
    const f = await peopleSync();
    process.env.ENGINE_PASS_THROUGH = "0";
    const first = await run(f);
    delete process.env.ENGINE_PASS_THROUGH;
    expect([first.path, first.run.successfulRows]).toEqual(["rows", ROWS]);
    const next = await run(f);
    expect(next.path).toBe("rows");
    expect(runCounters(next.run)).toMatchObject({ totalRows: 0, skippedRows: ROWS });
  });

  it("lines when the latest successful run read lines, or when an earlier attempt of the run did", async () => {
    const f = await peopleSync({ rate: 1_000_000 });
    const first = await run(f);
    expect(first.path).toBe("mapped lines");
    const queued = await triggerSync(f.workspaceId, f.syncId);
    const ctx = await loadRunContext(await reloadRun(queued.id));
    const plan = (noStates = false, attempts = 1) => planPassThrough(ctx, { query: QUERY, batchSize: 500 }, { noStates, runId: queued.id, attempts });

    expect((await plan())?.destination).toBeNull();
    // Nothing tracked: lines, unless an earlier attempt of the run may have sent rows on the JSON path.
    expect((await plan(true, 1))?.destination).toBeNull();
    expect(await plan(true, 2)).toBeUndefined();
    // No successful run read lines, and this run has not begun with them: its states are the JSON path's.
    await sql(process.env.DATABASE_URL as string, "UPDATE sync_runs SET status = 'failed' WHERE id = $1", [first.run.id]);
    expect(await plan()).toBeUndefined();
    // An earlier attempt of this run claimed lines: a resumed attempt keeps them.
    await sql(process.env.DATABASE_URL as string, "UPDATE sync_runs SET record_columns = (SELECT record_columns FROM sync_runs WHERE id = $2) WHERE id = $1", [
      queued.id,
      first.run.id,
    ]);
    expect((await plan())?.recordColumns).toMatchObject({ mapped: true });
    expect((await plan(true, 2))?.recordColumns).toMatchObject({ mapped: true });
  });
});

describe("lines into tables write() treats apart", () => {
  it("a table with row-level security, which refuses COPY FROM: the first sync merges instead", async () => {
    const role = `ds_rls_${process.pid}`;
    const f = await peopleSync();
    await sql(destination.url, `CREATE ROLE ${role} LOGIN PASSWORD '${role}'; GRANT USAGE, CREATE ON SCHEMA public TO ${role}; GRANT ALL ON ${f.table} TO ${role}`);
    await sql(destination.url, `ALTER TABLE ${f.table} ENABLE ROW LEVEL SECURITY; CREATE POLICY everyone ON ${f.table} TO ${role} USING (true) WITH CHECK (true)`);
    try {
      const url = new URL(destination.url);
      url.username = role;
      url.password = role;
      await prisma().connector.update({ where: { id: f.destinationId }, data: { configurationEncrypted: encryptJson(pgConnectorConfig(url.toString())) } });
      const r = await run(f);
      expect([r.result, r.run.error]).toEqual(["success", null]);
      expect(r.path).toBe("pass-through");
      expect(runCounters(r.run)).toEqual({ totalQueryRows: ROWS, totalRows: ROWS, successfulRows: ROWS, failedRows: 0, skippedRows: 0 });
      expect(await sql(destination.url, `SELECT count(*)::int AS n FROM ${f.table}`)).toEqual([{ n: ROWS }]);
    } finally {
      await stopEngine();
      await sql(destination.url, `DROP TABLE ${f.table}; DROP OWNED BY ${role}; DROP ROLE ${role}`);
    }
  });

  it("a table with an array column: computed columns would not be written as write() writes them, so the lines are mapped", async () => {
    const f = await peopleSync({
      query: "SELECT id, label, ARRAY[label, 'x'] AS tags FROM people",
      configuration: [
        { from: "id", to: "id", mapping_type: "standard" },
        { from: "{{ label | upcase }}", to: "label", mapping_type: "template" },
        { from: "tags", to: "tags", mapping_type: "standard" },
      ],
      columns: ", tags text[]",
    });
    const r = await run(f);
    expect(r.path).toBe("mapped lines");
    expect(r.run.failedRows).toBe(0);
    expect(await sql(destination.url, `SELECT label, tags::text FROM ${f.table} WHERE id = 5`)).toEqual([{ label: "PERSON 5", tags: "{\"person 5\",x}" }]);
  });
});

// ClickHouse → PostgreSQL by the pass-through path (the source's TabSeparated lines made COPY text,
// lib/connectors/clickhouse/text-rows.ts) against the JSON path on the same rows of a private
// ClickHouse server: the same destination rows and records, awkward values arriving as they left, a
// re-run sending nothing, a refused batch failing its bad row alone, and the JSON path kept where a
// column's text is not exact for its destination (String into bytea).
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startClickhouse, type ClickhouseServer } from "@/tests/support/clickhouse-server";
import { createScratchDatabase, useTestDatabase } from "@/tests/support/db";
import { executeRun } from "./execute-run";
import { stopEngine, triggerSync } from "./index";
import { catalogOf, createFixture, pgConnectorConfig, readPath, reloadRun, runRecords, sql, tableStream } from "./test-support";

useTestDatabase();

/** Column, ClickHouse type, PostgreSQL type, and rows 1–3 as ClickHouse expressions. */
const COLUMNS: { name: string; ch: string; pg: string; rows: [string, string, string] }[] = [
  { name: "i8", ch: "Int8", pg: "smallint", rows: ["-128", "127", "0"] },
  { name: "i64", ch: "Nullable(Int64)", pg: "bigint", rows: ["-9223372036854775808", "NULL", "9007199254740993"] },
  { name: "u64", ch: "Nullable(UInt64)", pg: "numeric", rows: ["18446744073709551615", "NULL", "9007199254740993"] },
  { name: "amount", ch: "Nullable(Decimal(38, 10))", pg: "numeric(38,10)", rows: ["toDecimal128('-9999999999999999999999999999.9999999999', 10)", "NULL", "toDecimal128('12.5', 10)"] },
  { name: "f4", ch: "Nullable(Float32)", pg: "real", rows: ["-inf", "0.1", "NULL"] },
  { name: "f8", ch: "Nullable(Float64)", pg: "double precision", rows: ["nan", "inf", "0.1"] },
  // Escapes COPY shares (tab, newline, CR, backslash, quote), emoji, the two-character string \N, a BOM.
  { name: "label", ch: "Nullable(String)", pg: "text", rows: ["'emoji \\xF0\\x9F\\x98\\x80 quote\\' back\\\\ tab\\t nl\\n cr\\r'", "'\\\\N'", "'\\xEF\\xBB\\xBFbom first'"] },
  // Bytes that are not text (a NUL, broken UTF-8) travel as bytea's text; control characters as they are.
  { name: "raw", ch: "String", pg: "text", rows: ["unhex('005CFF7831')", "'bell \\x07 vt \\x0B ff \\x0C bs \\x08'", "''"] },
  { name: "fixed", ch: "FixedString(3)", pg: "text", rows: ["'abc'", "'ab'", "'üx'"] },
  { name: "kind", ch: "Enum8('a' = 1, 'b,c\\tt' = 2)", pg: "text", rows: ["'b,c\\tt'", "'a'", "'a'"] },
  { name: "day", ch: "Nullable(Date)", pg: "date", rows: ["'2105-12-31'", "NULL", "'1970-01-02'"] },
  { name: "at", ch: "Nullable(DateTime)", pg: "timestamptz", rows: ["'2024-05-01 10:00:00'", "NULL", "'2000-02-29 23:59:59'"] },
  { name: "at_tokyo", ch: "DateTime('Asia/Tokyo')", pg: "timestamptz", rows: ["toDateTime('2024-05-01 10:00:00', 'Asia/Tokyo')", "toDateTime(0)", "toDateTime(1)"] },
  { name: "uid", ch: "Nullable(UUID)", pg: "uuid", rows: ["toUUID('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11')", "NULL", "NULL"] },
  // Composite values as the JSON path writes them into jsonb.
  { name: "ints", ch: "Array(Nullable(Int32))", pg: "jsonb", rows: ["[1, NULL, -2147483648]", "[]", "[0]"] },
  { name: "texts", ch: "Array(String)", pg: "jsonb", rows: ["['a,b', 'c\"d', 'NULL', 'tab\\there', 'back\\\\slash', '\\\\N']", "[]", "['']"] },
  { name: "big", ch: "Array(UInt64)", pg: "jsonb", rows: ["[toUInt64(18446744073709551615), toUInt64(1)]", "[]", "[]"] },
  { name: "pair", ch: "Tuple(Int32, String)", pg: "jsonb", rows: ["tuple(toInt32(1), 'x\\'y')", "tuple(toInt32(0), '')", "tuple(toInt32(-1), 'ü')"] },
];
const NAMES = ["id", ...COLUMNS.map((c) => c.name)];
const ROWS = 1500;

let server: ClickhouseServer;
let pgDb: { url: string; drop(): Promise<void> };

const ddl = (table: string, extra = "") => `CREATE TABLE ${table} (id bigint PRIMARY KEY, ${COLUMNS.map((c) => `"${c.name}" ${c.pg}`).join(", ")}${extra})`;

beforeAll(async () => {
  server = await startClickhouse();
  await server.exec("CREATE DATABASE tp");
  await server.exec(`CREATE TABLE tp.awkward (id UInt32, ${COLUMNS.map((c) => `${c.name} ${c.ch}`).join(", ")}) ENGINE = MergeTree ORDER BY id`);
  for (let r = 0; r < 3; r++) {
    await server.exec(`INSERT INTO tp.awkward SELECT ${r + 1}, ${COLUMNS.map((c) => `CAST(${c.rows[r]} AS ${c.ch})`).join(", ")}`);
  }
  // Plain rows for several batches (defaults elsewhere: zero dates and DateTimes, the first enum value).
  await server.exec(`INSERT INTO tp.awkward (id, label, raw) SELECT number + 4, concat('row ', toString(number + 4)), 'x' FROM system.numbers LIMIT ${ROWS - 3}`);
  pgDb = await createScratchDatabase("ds_ch_text");
}, 120_000);

afterEach(() => {
  delete process.env.ENGINE_PASS_THROUGH;
  delete process.env.ENGINE_BATCH_SIZE;
});

afterAll(async () => {
  await stopEngine();
  await server?.stop();
  await pgDb?.drop();
});

async function fixture(table: string, configuration = NAMES.map((c) => ({ from: c, to: c, mapping_type: "standard" }))) {
  return createFixture({
    sourceUrl: pgDb.url,
    source: { connectorName: "Clickhouse", config: { url: server.url, username: server.username, password: server.password, database: "tp" } },
    destination: { connectorName: "Postgresql", config: pgConnectorConfig(pgDb.url), catalog: catalogOf(tableStream(table)) },
    query: `SELECT ${NAMES.join(", ")} FROM awkward`,
    sync: { configuration },
  });
}

async function run(f: { workspaceId: number; syncId: number }) {
  const created = await triggerSync(f.workspaceId, f.syncId);
  const result = await executeRun(created.id);
  const r = await reloadRun(created.id);
  return { result, run: r, passedThrough: readPath(r) === "pass-through", path: readPath(r), records: await runRecords(created.id) };
}

const counters = (r: Awaited<ReturnType<typeof run>>["run"]) => ({
  totalRows: r.totalRows,
  successfulRows: r.successfulRows,
  failedRows: r.failedRows,
  skippedRows: r.skippedRows,
});

const rowsOf = (table: string) => sql(pgDb.url, `SELECT ${NAMES.map((c) => `"${c}"::text AS "${c}"`).join(", ")} FROM ${table} t ORDER BY t.id`);

describe("ClickHouse to PostgreSQL by the pass-through path", () => {
  it("writes what the JSON path writes, each awkward value as it left; a re-run sends nothing", async () => {
    process.env.ENGINE_BATCH_SIZE = "400";
    await sql(pgDb.url, ddl("by_text"));
    await sql(pgDb.url, ddl("by_json"));
    const text = await fixture("by_text");
    const a = await run(text);
    process.env.ENGINE_PASS_THROUGH = "0";
    const b = await run(await fixture("by_json"));
    expect([a.passedThrough, b.passedThrough]).toEqual([true, false]);
    expect(a.records.filter((x) => x.status === "failed").map((x) => x.error)).toEqual([]);
    expect(counters(a.run)).toEqual({ totalRows: ROWS, successfulRows: ROWS, failedRows: 0, skippedRows: 0 });
    expect(counters(a.run)).toEqual(counters(b.run));
    const [passed, parsed] = [await rowsOf("by_text"), await rowsOf("by_json")];
    expect(passed).toEqual(parsed);
    expect(passed[0]).toMatchObject({
      i8: "-128",
      i64: "-9223372036854775808",
      u64: "18446744073709551615",
      amount: "-9999999999999999999999999999.9999999999",
      f4: "-Infinity",
      f8: "NaN",
      label: "emoji \u{1F600} quote' back\\ tab\t nl\n cr\r",
      raw: "\\x005cff7831",
      fixed: "abc",
      kind: "b,c\tt",
      day: "2105-12-31",
      at: "2024-05-01 10:00:00+00",
      at_tokyo: "2024-05-01 01:00:00+00",
      uid: "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
      ints: "[1, null, -2147483648]",
      texts: '["a,b", "c\\"d", "NULL", "tab\\there", "back\\\\slash", "\\\\N"]',
      big: '["18446744073709551615", 1]',
      pair: '[1, "x\'y"]',
    });
    expect(passed[1]).toMatchObject({ i64: null, label: "\\N", raw: "bell \x07 vt \x0b ff \x0c bs \x08", fixed: "\\x616200", f4: "0.1", f8: "Infinity", at_tokyo: "1970-01-01 00:00:00+00" });
    expect(passed[2]).toMatchObject({ label: "\uFEFFbom first", u64: "9007199254740993", i64: "9007199254740993", f4: null, fixed: "üx" });
    expect(passed[3]).toMatchObject({ label: "row 4", at: null, at_tokyo: "1970-01-01 00:00:00+00", kind: "a", ints: "[]" });
    // Records read back from the line are the JSON path's records, value for value.
    const byKey = (records: typeof a.records) => new Map(records.map((r) => [r.primaryKey, { record: r.record, action: r.action, status: r.status }]));
    expect(byKey(a.records)).toEqual(byKey(b.records));

    delete process.env.ENGINE_PASS_THROUGH;
    const again = await run(text);
    expect(again.passedThrough).toBe(true);
    expect(counters(again.run)).toEqual({ totalRows: 0, successfulRows: 0, failedRows: 0, skippedRows: ROWS });
  });

  it("a batch the destination refuses falls back to per-row outcomes: only the bad row fails", async () => {
    await sql(pgDb.url, ddl("checked", ", CHECK (i8 > -100)"));
    const r = await run(await fixture("checked"));
    expect(r.passedThrough).toBe(true);
    expect(r.run.error).toBeNull();
    expect(counters(r.run)).toEqual({ totalRows: ROWS, successfulRows: ROWS - 1, failedRows: 1, skippedRows: 0 });
    const failed = r.records.filter((x) => x.status === "failed");
    expect(failed.map((x) => x.primaryKey)).toEqual(["1"]);
    expect(failed[0].error).toMatch(/check constraint/i);
  });

  it("computes the column where its text is not exact for its destination (String into bytea)", async () => {
    await sql(pgDb.url, `CREATE TABLE as_bytes (id bigint PRIMARY KEY, raw bytea)`);
    const r = await run(await fixture("as_bytes", ["id", "raw"].map((c) => ({ from: c, to: c, mapping_type: "standard" }))));
    expect(r.path).toBe("pass-through");
    expect(counters(r.run)).toMatchObject({ successfulRows: ROWS, failedRows: 0 });
    expect(await sql(pgDb.url, "SELECT raw::text AS raw FROM as_bytes WHERE id = 1")).toEqual([{ raw: "\\x005cff7831" }]);
  });
});

// The type-fidelity suite (tests/support/type-fidelity.ts), ClickHouse to PostgreSQL through the
// engine: a private ClickHouse server (tests/support/clickhouse-server.ts) holding awkward values of
// its own types, synced into PostgreSQL columns of the matching types; per column, PostgreSQL's text
// of what arrived is the value that left, or its documented conversion (docs/connectors.md, "Values").
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startClickhouse, type ClickhouseServer } from "@/tests/support/clickhouse-server";
import { createScratchDatabase, useTestDatabase } from "@/tests/support/db";
import { executeRun } from "./execute-run";
import { stopEngine, triggerSync } from "./index";
import { catalogOf, createFixture, pgConnectorConfig, reloadRun, runRecords, sql, tableStream } from "./test-support";

useTestDatabase();

/** ClickHouse column → PostgreSQL column, an awkward ClickHouse value, and PostgreSQL's text of what arrived. */
const FROM_CLICKHOUSE: { name: string; ch: string; pg: string; value: string; arrives: string }[] = [
  { name: "i8", ch: "Int8", pg: "smallint", value: "-128", arrives: "-128" },
  { name: "u32", ch: "UInt32", pg: "bigint", value: "4294967295", arrives: "4294967295" },
  { name: "i64", ch: "Int64", pg: "bigint", value: "-9223372036854775808", arrives: "-9223372036854775808" },
  // UInt64 past bigint's range: numeric holds it exactly.
  { name: "u64", ch: "UInt64", pg: "numeric", value: "18446744073709551615", arrives: "18446744073709551615" },
  { name: "amount", ch: "Decimal(38, 10)", pg: "numeric(38,10)", value: "toDecimal128('-9999999999999999999999999999.9999999999', 10)", arrives: "-9999999999999999999999999999.9999999999" },
  { name: "f4", ch: "Float32", pg: "real", value: "-inf", arrives: "-Infinity" },
  { name: "f8", ch: "Float64", pg: "double precision", value: "nan", arrives: "NaN" },
  { name: "f8b", ch: "Float64", pg: "double precision", value: "0.1", arrives: "0.1" },
  { name: "label", ch: "String", pg: "text", value: "'emoji \\xF0\\x9F\\x98\\x80 quote\\' back\\\\ tab\\t nl\\n'", arrives: "emoji \u{1F600} quote' back\\ tab\t nl\n" },
  // Bytes that are not text travel as bytea's text (documented conversion).
  { name: "bytes", ch: "String", pg: "bytea", value: "unhex('005CFF7831')", arrives: "\\x005cff7831" },
  { name: "fixed", ch: "FixedString(4)", pg: "text", value: "'abcd'", arrives: "abcd" },
  { name: "day", ch: "Date", pg: "date", value: "'2105-12-31'", arrives: "2105-12-31" },
  { name: "at", ch: "DateTime", pg: "timestamptz", value: "'2024-05-01 10:00:00'", arrives: "2024-05-01 10:00:00+00" },
  { name: "at_tokyo", ch: "DateTime('Asia/Tokyo')", pg: "timestamptz", value: "toDateTime('2024-05-01 10:00:00', 'Asia/Tokyo')", arrives: "2024-05-01 01:00:00+00" },
  { name: "uid", ch: "UUID", pg: "uuid", value: "toUUID('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11')", arrives: "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11" },
  { name: "kind", ch: "Enum8('a' = 1, 'b,c' = 2)", pg: "text", value: "'b,c'", arrives: "b,c" },
  { name: "ints", ch: "Array(Nullable(Int32))", pg: "integer[]", value: "[1, NULL, -2147483648]", arrives: "{1,NULL,-2147483648}" },
  { name: "texts", ch: "Array(Nullable(String))", pg: "text[]", value: "['a,b', 'c\"d', NULL, 'NULL']", arrives: '{"a,b","c\\"d",NULL,"NULL"}' },
  { name: "big_ints", ch: "Array(Int64)", pg: "bigint[]", value: "[toInt64(9007199254740993), toInt64(-1)]", arrives: "{9007199254740993,-1}" },
];

describe("ClickHouse to PostgreSQL, awkward types", () => {
  let server: ClickhouseServer;
  let pgDb: { url: string; drop(): Promise<void> };

  beforeAll(async () => {
    server = await startClickhouse();
    await server.exec("CREATE DATABASE tf");
    const nullable = (t: string) => (t.startsWith("Array") ? t : `Nullable(${t})`);
    await server.exec(`CREATE TABLE tf.awkward (id UInt32, ${FROM_CLICKHOUSE.map((c) => `${c.name} ${nullable(c.ch)}`).join(", ")}) ENGINE = MergeTree ORDER BY id`);
    // INSERT … SELECT with each value cast to its column's type (18.16's VALUES parser is strict about expressions).
    const cast = (value: string, c: (typeof FROM_CLICKHOUSE)[number]) => `CAST(${value} AS ${nullable(c.ch)})`;
    await server.exec(`INSERT INTO tf.awkward SELECT 1, ${FROM_CLICKHOUSE.map((c) => cast(c.value, c)).join(", ")}`);
    // Row 2: NULLs (arrays cannot be NULL in ClickHouse: empty ones).
    await server.exec(`INSERT INTO tf.awkward SELECT 2, ${FROM_CLICKHOUSE.map((c) => cast(c.ch.startsWith("Array") ? "[]" : "NULL", c)).join(", ")}`);
    pgDb = await createScratchDatabase("ds_tf_ch");
    await sql(pgDb.url, `CREATE TABLE awkward (id integer PRIMARY KEY, ${FROM_CLICKHOUSE.map((c) => `"${c.name}" ${c.pg}`).join(", ")})`);
  }, 120_000);

  afterAll(async () => {
    await stopEngine();
    await server?.stop();
    await pgDb?.drop();
  });

  it("each value arrives as it left, or by its documented conversion; a re-run sends nothing", async () => {
    const columns = ["id", ...FROM_CLICKHOUSE.map((c) => c.name)];
    const f = await createFixture({
      sourceUrl: pgDb.url,
      source: { connectorName: "Clickhouse", config: { url: server.url, username: server.username, password: server.password, database: "tf" } },
      destination: { connectorName: "Postgresql", config: pgConnectorConfig(pgDb.url), catalog: catalogOf(tableStream("awkward")) },
      query: `SELECT ${columns.join(", ")} FROM awkward`,
      sync: { configuration: columns.map((c) => ({ from: c, to: c, mapping_type: "standard" })) },
    });
    const run = async () => {
      const created = await triggerSync(f.workspaceId, f.syncId);
      await executeRun(created.id);
      return { run: await reloadRun(created.id), records: await runRecords(created.id) };
    };
    const first = await run();
    expect(first.run.error).toBeNull();
    expect(first.records.filter((x) => x.status === "failed").map((x) => x.error)).toEqual([]);
    const rows = await sql(pgDb.url, `SELECT id, ${FROM_CLICKHOUSE.map((c) => `"${c.name}"::text AS "${c.name}"`).join(", ")} FROM awkward ORDER BY id`);
    expect(rows).toHaveLength(2);
    for (const c of FROM_CLICKHOUSE) {
      expect(rows[0][c.name], `column "${c.name}"`).toBe(c.arrives);
      expect(rows[1][c.name], `column "${c.name}" (NULL or empty)`).toBe(c.ch.startsWith("Array") ? "{}" : null);
    }
    const again = await run();
    expect(again.run).toMatchObject({ totalRows: 0, skippedRows: 2 });
  });
});

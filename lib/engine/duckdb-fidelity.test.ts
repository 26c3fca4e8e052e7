// The type-fidelity suite (tests/support/type-fidelity.ts), DuckDB to PostgreSQL through the engine:
// a DuckDB database of awkward values (a temporary DUCKDB_DATA_DIR) synced into PostgreSQL columns of
// the matching types; per column, PostgreSQL's text of what arrived is the value that left, or its
// documented conversion (docs/connectors.md, "Values").
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prisma } from "@/lib/db/client";
import { createScratchDatabase, useTestDatabase } from "@/tests/support/db";
import { executeRun } from "./execute-run";
import { stopEngine, triggerSync } from "./index";
import { catalogOf, createFixture, pgConnectorConfig, reloadRun, runRecords, sql, tableStream } from "./test-support";

useTestDatabase();

/** DuckDB column → PostgreSQL column, an awkward DuckDB value, and PostgreSQL's text of what arrived. */
const FROM_DUCKDB: { name: string; duck: string; pg: string; value: string; arrives: string }[] = [
  { name: "small", duck: "SMALLINT", pg: "smallint", value: "-32768", arrives: "-32768" },
  { name: "big", duck: "BIGINT", pg: "bigint", value: "-9223372036854775808", arrives: "-9223372036854775808" },
  { name: "huge", duck: "HUGEINT", pg: "numeric", value: "170141183460469231731687303715884105727", arrives: "170141183460469231731687303715884105727" },
  { name: "amount", duck: "DECIMAL(38,10)", pg: "numeric(38,10)", value: "9999999999999999999999999999.9999999999", arrives: "9999999999999999999999999999.9999999999" },
  { name: "f4", duck: "FLOAT", pg: "real", value: "'-Infinity'", arrives: "-Infinity" },
  { name: "f8", duck: "DOUBLE", pg: "double precision", value: "'NaN'", arrives: "NaN" },
  { name: "flag", duck: "BOOLEAN", pg: "boolean", value: "true", arrives: "true" },
  { name: "label", duck: "VARCHAR", pg: "text", value: "'emoji \u{1F600} quote'' back\\ tab'", arrives: "emoji \u{1F600} quote' back\\ tab" },
  { name: "day", duck: "DATE", pg: "date", value: "DATE '0001-01-01'", arrives: "0001-01-01" },
  { name: "at", duck: "TIMESTAMP", pg: "timestamp", value: "TIMESTAMP '2024-05-01 10:00:00.123456'", arrives: "2024-05-01 10:00:00.123456" },
  { name: "forever", duck: "TIMESTAMP", pg: "timestamp", value: "TIMESTAMP 'infinity'", arrives: "infinity" },
  { name: "at_tz", duck: "TIMESTAMPTZ", pg: "timestamptz", value: "TIMESTAMPTZ '2024-05-01 10:00:00.123456+02'", arrives: "2024-05-01 08:00:00.123456+00" },
  { name: "clock", duck: "TIME", pg: "time", value: "TIME '23:59:59.999999'", arrives: "23:59:59.999999" },
  { name: "span", duck: "INTERVAL", pg: "interval", value: "INTERVAL '1 year 2 months 3 days 04:05:06.789'", arrives: "1 year 2 mons 3 days 04:05:06.789" },
  { name: "back", duck: "INTERVAL", pg: "interval", value: "INTERVAL '-1 day'", arrives: "-1 days" },
  { name: "uid", duck: "UUID", pg: "uuid", value: "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'", arrives: "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11" },
  { name: "doc", duck: "JSON", pg: "jsonb", value: `'{"big": 12345678901234567890, "dec": 1.50}'`, arrives: '{"big": 12345678901234567890, "dec": 1.50}' },
  { name: "ints", duck: "INTEGER[]", pg: "integer[]", value: "[1, NULL, -2147483648]", arrives: "{1,NULL,-2147483648}" },
  { name: "texts", duck: "VARCHAR[]", pg: "text[]", value: `['a,b', 'c"d', NULL]`, arrives: '{"a,b","c\\"d",NULL}' },
  // A backslash byte and bytes that are not text.
  { name: "bytes", duck: "BLOB", pg: "bytea", value: "from_hex('005cff7831')", arrives: "\\x005cff7831" },
];

describe("DuckDB to PostgreSQL, awkward types", () => {
  let root: string;
  let pgDb: { url: string; drop(): Promise<void> };
  let workspaceId: number;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), "ds-duckdb-tf-"));
    process.env.DUCKDB_DATA_DIR = root;
    workspaceId = (await prisma().workspace.create({ data: { name: "DuckDB fidelity", slug: `duckdb-tf-${Date.now()}` } })).id;
    const dir = path.join(root, `workspace-${workspaceId}`);
    await mkdir(dir);
    const instance = await DuckDBInstance.create(path.join(dir, "awkward.duckdb"));
    const conn = await instance.connect();
    await conn.run(`CREATE TABLE awkward (id INTEGER PRIMARY KEY, ${FROM_DUCKDB.map((c) => `"${c.name}" ${c.duck}`).join(", ")})`);
    await conn.run(`INSERT INTO awkward VALUES (1, ${FROM_DUCKDB.map((c) => c.value).join(", ")}), (2, ${FROM_DUCKDB.map(() => "NULL").join(", ")})`);
    conn.closeSync();
    instance.closeSync();
    pgDb = await createScratchDatabase("ds_tf_duck");
    await sql(pgDb.url, `CREATE TABLE awkward (id integer PRIMARY KEY, ${FROM_DUCKDB.map((c) => `"${c.name}" ${c.pg}`).join(", ")})`);
  });

  afterAll(async () => {
    await stopEngine();
    delete process.env.DUCKDB_DATA_DIR;
    await rm(root, { recursive: true, force: true });
    await pgDb?.drop();
  });

  it("each value arrives as it left, or by its documented conversion; a re-run sends nothing", async () => {
    const columns = ["id", ...FROM_DUCKDB.map((c) => c.name)];
    const f = await createFixture({
      workspaceId,
      sourceUrl: pgDb.url,
      source: { connectorName: "DuckDB", config: { database_file: "awkward.duckdb" } },
      destination: { connectorName: "Postgresql", config: pgConnectorConfig(pgDb.url), catalog: catalogOf(tableStream("awkward")) },
      query: `SELECT ${columns.map((c) => `"${c}"`).join(", ")} FROM awkward`,
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
    const rows = await sql(pgDb.url, `SELECT id, ${FROM_DUCKDB.map((c) => `"${c.name}"::text AS "${c.name}"`).join(", ")} FROM awkward ORDER BY id`);
    expect(rows).toHaveLength(2);
    for (const c of FROM_DUCKDB) {
      expect(rows[0][c.name], `column "${c.name}"`).toBe(c.arrives);
      expect(rows[1][c.name], `column "${c.name}" (NULL)`).toBeNull();
    }
    const again = await run();
    expect(again.run).toMatchObject({ totalRows: 0, skippedRows: 2 });
  });
});

// The pass-through path (COPY text) between MariaDB and PostgreSQL, both ways, against the MariaDB
// server named by MARIADB_URL (skipped without it, saying why): the same rows synced by the text
// path and by the JSON path (ENGINE_PASS_THROUGH=0) arrive as the same values, cell for cell, with
// the same records; a batch the destination refuses falls back so the bad row fails alone.
import { randomBytes } from "node:crypto";
import mysql from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createScratchDatabase, useTestDatabase } from "@/tests/support/db";
import { executeRun } from "./execute-run";
import { stopEngine, triggerSync } from "./index";
import { catalogOf, createFixture, pgConnectorConfig, readPath, reloadRun, runRecords, sql, tableStream, type Fixture } from "./test-support";

const MARIADB_URL = process.env.MARIADB_URL;
const SKIP_REASON = "MARIADB_URL is not set (e.g. MARIADB_URL=mysql://root@127.0.0.1:3306/test), so the MariaDB text-path test is skipped";
if (!MARIADB_URL) console.warn(`[lib/engine/mariadb-text.test.ts] ${SKIP_REASON}`);

useTestDatabase();

/** MariaDB column, PostgreSQL column; every type the MariaDB source writes as COPY text. */
const FROM: [string, string, string][] = [
  ["t", "TINYINT", "smallint"],
  ["s", "SMALLINT", "smallint"],
  ["m", "MEDIUMINT", "integer"],
  ["i", "INT", "integer"],
  ["iu", "INT UNSIGNED", "bigint"],
  ["b", "BIGINT", "bigint"],
  ["bu", "BIGINT UNSIGNED", "numeric(20,0)"],
  ["d", "DECIMAL(38,10)", "numeric(38,10)"],
  ["f", "FLOAT", "real"],
  ["g", "DOUBLE", "double precision"],
  ["day", "DATE", "date"],
  ["at", "DATETIME(6)", "timestamp"],
  ["stamp", "TIMESTAMP(6) NULL", "timestamptz"],
  ["label", "VARCHAR(100)", "text"],
  ["code", "CHAR(5)", "varchar(5)"],
  ["body", "TEXT", "text"],
  ["kind", "ENUM('a','b c')", "text"],
];
const AWKWARD = "CONCAT('tab', CHAR(9), 'nl', CHAR(10), 'cr', CHAR(13), 'bs\\\\', 'ff', CHAR(12), 'end')";
const FROM_ROWS = [
  `(1, -128, -32768, -8388608, -2147483648, 0, -9223372036854775808, 0, '-9999999999999999999999999999.9999999999', -1.5, 1.7976931348623157e308, '1000-01-01', '1000-01-01 00:00:00.000001', '1970-01-01 00:00:01', 'NULL', '', ${AWKWARD}, 'a')`,
  `(2, 127, 32767, 8388607, 2147483647, 4294967295, 9223372036854775807, 18446744073709551615, '0.0000000001', 1.1, 0.1, '9999-12-31', '9999-12-31 23:59:59.999999', '2038-01-19 03:14:07.999999', '\\\\N', 'ab', 'emoji \u{1F600} ünïcode ☃', 'b c')`,
  `(3, ${FROM.map(() => "NULL").join(", ")})`,
  `(4, 0, 0, 0, 0, 0, 9007199254740993, 9007199254740993, '1.50', 0, -0.000001, '2024-02-29', '2024-02-29 12:00:00', '2024-02-29 12:00:00.5', 'x\\\\ty', 'N', 'NULL', NULL)`,
];

/** PostgreSQL column, MariaDB column; every pair the MariaDB destination takes as COPY text. */
const TO: [string, string, string][] = [
  ["s", "smallint", "SMALLINT"],
  ["i", "integer", "INT"],
  ["b", "bigint", "BIGINT"],
  ["d", "numeric(38,10)", "DECIMAL(38,10)"],
  ["f", "real", "FLOAT"],
  ["g", "double precision", "DOUBLE"],
  ["day", "date", "DATE"],
  ["at", "timestamp", "DATETIME(6)"],
  ["stamp", "timestamptz", "TIMESTAMP(6) NULL"],
  ["label", "text", "TEXT"],
  ["code", "varchar(10)", "VARCHAR(10)"],
  ["ch", "char(5)", "CHAR(5)"],
  ["n", "integer", "VARCHAR(20)"],
];
const TO_ROWS = [
  `(1, -32768, -2147483648, -9223372036854775808, -9999999999999999999999999999.9999999999, -1.5, 1.7976931348623157e308, '0001-01-01', '0001-01-01 00:00:00.000001', '1970-01-01 00:00:01+00', E'tab\\t nl\\n cr\\r bs\\\\ ff\\f vt\\v bsp\\b', 'NULL', '', -7)`,
  `(2, 32767, 2147483647, 9223372036854775807, 0.0000000001, 1.1, 0.1, '9999-12-31', '9999-12-31 23:59:59.999999', '2024-05-01 10:00:00.123456+02', 'emoji \u{1F600} ünïcode ☃', E'\\\\N', 'ab', 7)`,
  `(3, ${TO.map(() => "NULL").join(", ")})`,
  `(4, 0, 0, 9007199254740993, 1.50, 0, -0.000001, '2024-02-29', '2024-02-29 12:00:00', '2038-01-19 03:14:07.999999+00', E'x\\\\ty', 'N', 'NULL', 0)`,
];

describe.skipIf(!MARIADB_URL)(MARIADB_URL ? "the COPY text path, MariaDB ↔ PostgreSQL" : `the COPY text path, MariaDB ↔ PostgreSQL (skipped: ${SKIP_REASON})`, () => {
  const url = new URL(MARIADB_URL ?? "mysql://root@127.0.0.1:3306/test");
  const database = `ds_text_${randomBytes(4).toString("hex")}`;
  const mariaConfig = () => ({
    host: url.hostname,
    port: Number(url.port || 3306),
    username: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database,
  });
  let admin: mysql.Connection;
  let pgDb: { url: string; drop(): Promise<void> };

  beforeAll(async () => {
    admin = await mysql.createConnection({ host: url.hostname, port: Number(url.port || 3306), user: decodeURIComponent(url.username), password: decodeURIComponent(url.password) });
    await admin.query(`CREATE DATABASE ${database} CHARACTER SET utf8mb4`);
    await admin.query(`SET time_zone = '+00:00'`);
    pgDb = await createScratchDatabase("ds_text_maria");
  });

  afterAll(async () => {
    delete process.env.ENGINE_PASS_THROUGH;
    await stopEngine();
    await admin?.query(`DROP DATABASE IF EXISTS ${database}`);
    await admin?.end();
    await pgDb?.drop();
  });

  async function run(f: Fixture, path: "text" | "json") {
    process.env.ENGINE_PASS_THROUGH = path === "text" ? "1" : "0";
    const created = await triggerSync(f.workspaceId, f.syncId);
    await executeRun(created.id);
    const r = await reloadRun(created.id);
    const records = (await runRecords(created.id)).sort((a, b) => Number(a.primaryKey) - Number(b.primaryKey));
    return { run: r, passedThrough: readPath(r) === "pass-through", path: readPath(r), records };
  }

  const standard = (columns: string[]) => columns.map((c) => ({ from: c, to: c, mapping_type: "standard" }));
  const mariaSelect = (table: string, columns: string[]) =>
    admin.query(`SELECT id, ${columns.map((c) => `CAST(\`${c}\` AS CHAR) AS \`${c}\``).join(", ")} FROM ${database}.${table} ORDER BY id`).then(([rows]) => rows as Record<string, unknown>[]);
  const pgSelect = (table: string, columns: string[]) => sql(pgDb.url, `SELECT id, ${columns.map((c) => `"${c}"::text AS "${c}"`).join(", ")} FROM ${table} ORDER BY id`);

  it("MariaDB to PostgreSQL: the text path writes what the JSON path writes, value for value, with the same records", async () => {
    const names = FROM.map(([n]) => n);
    await admin.query(`CREATE TABLE ${database}.from_maria (id INT PRIMARY KEY, ${FROM.map(([n, m]) => `\`${n}\` ${m}`).join(", ")}) CHARACTER SET utf8mb4`);
    await admin.query(`INSERT INTO ${database}.from_maria VALUES ${FROM_ROWS.join(", ")}`);
    const results = [];
    for (const path of ["text", "json"] as const) {
      const table = `from_maria_${path}`;
      await sql(pgDb.url, `CREATE TABLE ${table} (id integer PRIMARY KEY, ${FROM.map(([n, , p]) => `"${n}" ${p}`).join(", ")})`);
      const f = await createFixture({
        sourceUrl: pgDb.url,
        source: { connectorName: "MariaDB", config: mariaConfig() },
        destination: { connectorName: "Postgresql", config: pgConnectorConfig(pgDb.url), catalog: catalogOf(tableStream(table)) },
        query: `SELECT id, ${names.map((c) => `\`${c}\``).join(", ")} FROM from_maria`,
        sync: { configuration: standard(["id", ...names]) },
      });
      const first = await run(f, path);
      expect(first.passedThrough, path).toBe(path === "text");
      expect(first.records.filter((x) => x.status === "failed").map((x) => x.error)).toEqual([]);
      expect(first.run).toMatchObject({ totalRows: 4, successfulRows: 4 });
      results.push({ rows: await pgSelect(table, names), records: first.records.map((r) => r.record) });
      const again = await run(f, path);
      expect(again.run).toMatchObject({ totalRows: 0, skippedRows: 4 });
    }
    const [text, json] = results;
    expect(text.rows).toEqual(json.rows);
    expect(text.records).toEqual(json.records);
    // NULL and the string 'NULL' stay apart; escapes arrive as the characters they stand for.
    expect(text.rows[0]).toMatchObject({ label: "NULL", code: "", body: "tab\tnl\ncr\rbs\\ff\fend", stamp: "1970-01-01 00:00:01+00" });
    expect(text.rows[1]).toMatchObject({ label: "\\N", body: "emoji \u{1F600} ünïcode ☃", bu: "18446744073709551615", f: "1.1" });
    expect(text.rows[2].label).toBeNull();
    expect(text.records[3]).toMatchObject({ b: "9007199254740993", label: "x\\ty", body: "NULL", kind: null, stamp: "2024-02-29T12:00:00.500000Z" });
  });

  it("PostgreSQL to MariaDB: the text path writes what the JSON path writes, value for value", async () => {
    const names = TO.map(([n]) => n);
    await sql(pgDb.url, `CREATE TABLE to_maria (id integer PRIMARY KEY, ${TO.map(([n, p]) => `"${n}" ${p}`).join(", ")})`);
    await sql(pgDb.url, `INSERT INTO to_maria VALUES ${TO_ROWS.join(", ")}`);
    const results = [];
    for (const path of ["text", "json"] as const) {
      const table = `to_maria_${path}`;
      await admin.query(`CREATE TABLE ${database}.${table} (id INT PRIMARY KEY, ${TO.map(([n, , m]) => `\`${n}\` ${m}`).join(", ")}) CHARACTER SET utf8mb4`);
      const f = await createFixture({
        sourceUrl: pgDb.url,
        destination: { connectorName: "MariaDB", config: mariaConfig(), catalog: catalogOf(tableStream(table)) },
        query: `SELECT id, ${names.map((c) => `"${c}"`).join(", ")} FROM to_maria`,
        sync: { configuration: standard(["id", ...names]) },
      });
      const first = await run(f, path);
      expect(first.passedThrough, path).toBe(path === "text");
      expect(first.records.filter((x) => x.status === "failed").map((x) => x.error)).toEqual([]);
      expect(first.run).toMatchObject({ totalRows: 4, successfulRows: 4 });
      results.push(await mariaSelect(table, names));
      // A changed row goes through the staging table and its merge.
      await sql(pgDb.url, "UPDATE to_maria SET label = E'changed\\tagain', stamp = '2030-01-01 00:00:00+00' WHERE id = 3");
      const changed = await run(f, path);
      await sql(pgDb.url, "UPDATE to_maria SET label = NULL, stamp = NULL WHERE id = 3");
      expect(changed.run).toMatchObject({ totalRows: 1, successfulRows: 1 });
      expect((await mariaSelect(table, ["label", "stamp"]))[2]).toEqual({ id: 3, label: "changed\tagain", stamp: "2030-01-01 00:00:00.000000" });
    }
    const [text, json] = results;
    expect(text).toEqual(json);
    expect(text[0]).toMatchObject({ label: "tab\t nl\n cr\r bs\\ ff\f vt\v bsp\b", code: "NULL", ch: "", n: "-7", stamp: "1970-01-01 00:00:01.000000" });
    expect(text[1]).toMatchObject({ label: "emoji \u{1F600} ünïcode ☃", code: "\\N", stamp: "2024-05-01 08:00:00.123456" });
    expect(text[2].label).toBeNull();
  });

  it("PostgreSQL to MariaDB: a batch MariaDB refuses falls back, so only the bad row fails, with its own error", async () => {
    await sql(pgDb.url, "CREATE TABLE coded AS SELECT i AS id, 'c' || i AS code FROM generate_series(1, 50) AS i");
    await sql(pgDb.url, "UPDATE coded SET code = 'far too long' WHERE id = 17");
    await admin.query(`CREATE TABLE ${database}.coded (id INT PRIMARY KEY, code VARCHAR(5) NOT NULL)`);
    // A first sync into a table that already holds some keys: they are updated (the merge).
    await admin.query(`INSERT INTO ${database}.coded VALUES (3, 'stale'), (40, 'stale')`);
    const f = await createFixture({
      sourceUrl: pgDb.url,
      destination: { connectorName: "MariaDB", config: mariaConfig(), catalog: catalogOf(tableStream("coded")) },
      query: "SELECT id, code FROM coded",
      sync: { configuration: standard(["id", "code"]) },
    });
    const r = await run(f, "text");
    expect(r.passedThrough).toBe(true);
    expect(r.run).toMatchObject({ totalRows: 50, successfulRows: 49, failedRows: 1 });
    const failed = r.records.filter((x) => x.status === "failed");
    expect(failed.map((x) => x.primaryKey)).toEqual(["17"]);
    expect(failed[0].error).toMatch(/too long/i);
    const [rows] = (await admin.query(`SELECT COUNT(*) AS n, SUM(code = 'stale') AS stale FROM ${database}.coded`)) as unknown as [Record<string, unknown>[]];
    expect(rows[0]).toMatchObject({ n: 49, stale: "0" });
  });

  it("MariaDB to PostgreSQL: a batch PostgreSQL refuses falls back, so only the bad row fails", async () => {
    await admin.query(`CREATE TABLE ${database}.scored (id INT PRIMARY KEY, score INT)`);
    await admin.query(`INSERT INTO ${database}.scored SELECT seq, seq FROM ${database}.seq_1_to_50`);
    await admin.query(`UPDATE ${database}.scored SET score = -1 WHERE id = 23`);
    await sql(pgDb.url, "CREATE TABLE scored (id integer PRIMARY KEY, score integer CHECK (score > 0))");
    const f = await createFixture({
      sourceUrl: pgDb.url,
      source: { connectorName: "MariaDB", config: mariaConfig() },
      destination: { connectorName: "Postgresql", config: pgConnectorConfig(pgDb.url), catalog: catalogOf(tableStream("scored")) },
      query: "SELECT id, score FROM scored",
      sync: { configuration: standard(["id", "score"]) },
    });
    const r = await run(f, "text");
    expect(r.passedThrough).toBe(true);
    expect(r.run).toMatchObject({ totalRows: 50, successfulRows: 49, failedRows: 1 });
    expect(r.records.filter((x) => x.status === "failed").map((x) => [x.primaryKey, x.record])).toEqual([["23", { id: 23, score: -1 }]]);
  });
});

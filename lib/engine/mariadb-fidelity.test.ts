// The type-fidelity suite (tests/support/type-fidelity.ts) between PostgreSQL and MariaDB, both ways,
// through the engine, against the MariaDB server named by MARIADB_URL (skipped without it, saying why).
// Per column, what arrived equals what left or the documented conversion (docs/connectors.md,
// "Values"); a value MariaDB cannot hold fails its record with a sentence naming the column and value.
import { randomBytes } from "node:crypto";
import mysql from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createScratchDatabase, useTestDatabase } from "@/tests/support/db";
import { PG_TYPES, pgColumnsDdl } from "@/tests/support/type-fidelity";
import { executeRun } from "./execute-run";
import { stopEngine, triggerSync } from "./index";
import { catalogOf, createFixture, pgConnectorConfig, reloadRun, runRecords, sql, tableStream, type Fixture } from "./test-support";

const MARIADB_URL = process.env.MARIADB_URL;
const SKIP_REASON = "MARIADB_URL is not set (e.g. MARIADB_URL=mysql://root@127.0.0.1:3306/test), so the MariaDB type-fidelity test is skipped";
if (!MARIADB_URL) console.warn(`[lib/engine/mariadb-fidelity.test.ts] ${SKIP_REASON}`);

useTestDatabase();

/** PostgreSQL column → MariaDB column, a value MariaDB can hold, and the text MariaDB then holds (CAST AS CHAR, HEX for bytes). */
const TO_MARIADB: { name: string; pg: string; maria: string; value: string; arrives: string }[] = [
  { name: "small", pg: "smallint", maria: "SMALLINT", value: "-32768", arrives: "-32768" },
  { name: "big", pg: "bigint", maria: "BIGINT", value: "-9223372036854775808", arrives: "-9223372036854775808" },
  { name: "amount", pg: "numeric(38,10)", maria: "DECIMAL(38,10)", value: "-9999999999999999999999999999.9999999999", arrives: "-9999999999999999999999999999.9999999999" },
  { name: "f4", pg: "real", maria: "FLOAT", value: "1.5", arrives: "1.5" },
  { name: "f8", pg: "double precision", maria: "DOUBLE", value: "0.1", arrives: "0.1" },
  // Documented conversion: MariaDB's BOOLEAN is TINYINT(1).
  { name: "flag", pg: "boolean", maria: "BOOLEAN", value: "true", arrives: "1" },
  { name: "label", pg: "text", maria: "TEXT", value: `E'emoji \\U0001F600 tab\\t nl\\n back\\\\ quote'' dq"'`, arrives: "emoji \u{1F600} tab\t nl\n back\\ quote' dq\"" },
  { name: "code", pg: "varchar(40)", maria: "VARCHAR(40)", value: "'a,b;c'", arrives: "a,b;c" },
  { name: "day", pg: "date", maria: "DATE", value: "'0001-01-01'", arrives: "0001-01-01" },
  { name: "at", pg: "timestamp", maria: "DATETIME(6)", value: "'9999-12-31 23:59:59.999999'", arrives: "9999-12-31 23:59:59.999999" },
  // Documented conversion: an instant into DATETIME in UTC.
  { name: "at_tz", pg: "timestamptz", maria: "DATETIME(6)", value: "'2024-05-01 10:00:00.123456+02'", arrives: "2024-05-01 08:00:00.123456" },
  { name: "clock", pg: "time", maria: "TIME(6)", value: "'23:59:59.999999'", arrives: "23:59:59.999999" },
  // Documented conversion: an interval as PostgreSQL's text (MariaDB has no interval type).
  { name: "span", pg: "interval", maria: "VARCHAR(100)", value: "'-1 days'", arrives: "-1 days" },
  { name: "uid", pg: "uuid", maria: "CHAR(36)", value: "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'", arrives: "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11" },
  // JSON as compact text, every number as written.
  { name: "doc", pg: "jsonb", maria: "JSON", value: `'{"big": 12345678901234567890, "dec": 1.50, "s": "a\\"b"}'`, arrives: '{"s":"a\\"b","big":12345678901234567890,"dec":1.50}' },
  // Documented conversion: arrays as JSON.
  { name: "ints", pg: "integer[]", maria: "TEXT", value: "'{1,NULL,-2147483648}'", arrives: "[1,null,-2147483648]" },
  { name: "texts", pg: "text[]", maria: "TEXT", value: `'{"a,b","c\\"d",NULL}'`, arrives: '["a,b","c\\"d",null]' },
  { name: "bytes", pg: "bytea", maria: "BLOB", value: "'\\x00ff5c0a'", arrives: "00FF5C0A" },
  { name: "addr", pg: "inet", maria: "VARCHAR(50)", value: "'192.168.0.1/24'", arrives: "192.168.0.1/24" },
];

/** MariaDB column → PostgreSQL column, an awkward MariaDB value, and PostgreSQL's text of what arrived. */
const FROM_MARIADB: { name: string; maria: string; pg: string; value: string; arrives: string }[] = [
  { name: "tiny", maria: "TINYINT", pg: "smallint", value: "-128", arrives: "-128" },
  { name: "big", maria: "BIGINT", pg: "bigint", value: "-9223372036854775808", arrives: "-9223372036854775808" },
  { name: "ubig", maria: "BIGINT UNSIGNED", pg: "numeric(20,0)", value: "18446744073709551615", arrives: "18446744073709551615" },
  { name: "amount", maria: "DECIMAL(38,10)", pg: "numeric(38,10)", value: "9999999999999999999999999999.9999999999", arrives: "9999999999999999999999999999.9999999999" },
  { name: "f8", maria: "DOUBLE", pg: "double precision", value: "1.7976931348623157e308", arrives: "1.7976931348623157e+308" },
  { name: "flag", maria: "BOOLEAN", pg: "boolean", value: "1", arrives: "true" },
  { name: "label", maria: "VARCHAR(100)", pg: "text", value: "'emoji \u{1F600} quote'' back\\\\ tab\\t'", arrives: "emoji \u{1F600} quote' back\\ tab\t" },
  { name: "day", maria: "DATE", pg: "date", value: "'9999-12-31'", arrives: "9999-12-31" },
  { name: "at", maria: "DATETIME(6)", pg: "timestamp", value: "'1000-01-01 00:00:00.000001'", arrives: "1000-01-01 00:00:00.000001" },
  { name: "stamp", maria: "TIMESTAMP(6)", pg: "timestamptz", value: "'2038-01-19 03:14:07.999999'", arrives: "2038-01-19 03:14:07.999999+00" },
  // Documented conversion: MariaDB's TIME is a duration (up to ±838 hours): an interval in PostgreSQL.
  { name: "span", maria: "TIME(6)", pg: "interval", value: "'-838:59:59.000001'", arrives: "-838:59:59.000001" },
  { name: "doc", maria: "JSON", pg: "jsonb", value: `'{"big": 12345678901234567890, "dec": 1.50}'`, arrives: '{"big": 12345678901234567890, "dec": 1.50}' },
  { name: "bytes", maria: "BLOB", pg: "bytea", value: "x'00ff5c0a'", arrives: "\\x00ff5c0a" },
  { name: "kind", maria: "ENUM('a','b c')", pg: "text", value: "'b c'", arrives: "b c" },
];

describe.skipIf(!MARIADB_URL)(MARIADB_URL ? "type fidelity, PostgreSQL ↔ MariaDB" : `type fidelity, PostgreSQL ↔ MariaDB (skipped: ${SKIP_REASON})`, () => {
  const url = new URL(MARIADB_URL ?? "mysql://root@127.0.0.1:3306/test");
  const database = `ds_tf_${randomBytes(4).toString("hex")}`;
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
    pgDb = await createScratchDatabase("ds_tf_maria");
  });

  afterAll(async () => {
    await stopEngine();
    await admin?.query(`DROP DATABASE IF EXISTS ${database}`);
    await admin?.end();
    await pgDb?.drop();
  });

  async function run(f: Fixture) {
    const created = await triggerSync(f.workspaceId, f.syncId);
    await executeRun(created.id);
    return { run: await reloadRun(created.id), records: await runRecords(created.id) };
  }

  const toMariaDb = (table: string, columns: string[]) =>
    createFixture({
      sourceUrl: pgDb.url,
      destination: { connectorName: "MariaDB", config: mariaConfig(), catalog: catalogOf(tableStream(table)) },
      query: `SELECT ${columns.map((c) => `"${c}"`).join(", ")} FROM ${table}`,
      sync: { configuration: columns.map((c) => ({ from: c, to: c, mapping_type: "standard" })) },
    });

  it("PostgreSQL to MariaDB: each value arrives as it left, or by its documented conversion", async () => {
    const ddl = `id integer PRIMARY KEY, ${TO_MARIADB.map((c) => `"${c.name}" ${c.pg}`).join(", ")}`;
    await sql(pgDb.url, `CREATE TABLE to_maria (${ddl})`);
    await sql(pgDb.url, `INSERT INTO to_maria VALUES (1, ${TO_MARIADB.map((c) => c.value).join(", ")}), (2, ${TO_MARIADB.map(() => "NULL").join(", ")})`);
    await admin.query(`CREATE TABLE ${database}.to_maria (id INT PRIMARY KEY, ${TO_MARIADB.map((c) => `\`${c.name}\` ${c.maria}`).join(", ")}) CHARACTER SET utf8mb4`);
    const r = await run(await toMariaDb("to_maria", ["id", ...TO_MARIADB.map((c) => c.name)]));
    expect(r.records.filter((x) => x.status === "failed").map((x) => x.error)).toEqual([]);
    const select = TO_MARIADB.map((c) => (c.maria === "BLOB" ? `HEX(\`${c.name}\`) AS \`${c.name}\`` : `CAST(\`${c.name}\` AS CHAR) AS \`${c.name}\``)).join(", ");
    const [rows] = (await admin.query(`SELECT id, ${select} FROM ${database}.to_maria ORDER BY id`)) as unknown as [Record<string, unknown>[]];
    for (const c of TO_MARIADB) {
      expect(rows[0][c.name], `column "${c.name}"`).toBe(c.arrives);
      expect(rows[1][c.name], `column "${c.name}" (NULL)`).toBeNull();
    }
  });

  it("PostgreSQL to MariaDB: a value MariaDB cannot hold fails its record, naming the column and the value; never a NULL", async () => {
    const cases = [
      { id: 1, column: "f8", value: "'NaN'", shown: "NaN" },
      { id: 2, column: "f4", value: "'-Infinity'", shown: "-Infinity" },
      { id: 3, column: "at", value: "'infinity'", shown: "infinity" },
      { id: 4, column: "day", value: "'-infinity'", shown: "-infinity" },
    ];
    await sql(pgDb.url, `CREATE TABLE refused (${pgColumnsDdl(PG_TYPES)})`);
    for (const c of cases) await sql(pgDb.url, `INSERT INTO refused (id, "${c.column}") VALUES (${c.id}, ${c.value})`);
    await sql(pgDb.url, "INSERT INTO refused (id, f8) VALUES (5, 2.5)");
    await admin.query(`CREATE TABLE ${database}.refused (id INT PRIMARY KEY, f8 DOUBLE, f4 FLOAT, \`at\` DATETIME(6), day DATE)`);
    const r = await run(await toMariaDb("refused", ["id", "f8", "f4", "at", "day"]));
    for (const c of cases) {
      const record = r.records.find((x) => x.primaryKey === String(c.id));
      expect(record?.status, c.column).toBe("failed");
      expect(record?.error).toContain(`'${c.shown}'`);
      expect(record?.error).toContain(`\`${c.column}\``);
    }
    const [rows] = (await admin.query(`SELECT id, f8 FROM ${database}.refused ORDER BY id`)) as unknown as [Record<string, unknown>[]];
    expect(rows).toEqual([{ id: 5, f8: 2.5 }]);
  });

  it("MariaDB to PostgreSQL: each value arrives as it left, or by its documented conversion", async () => {
    await admin.query(`CREATE TABLE ${database}.from_maria (id INT PRIMARY KEY, ${FROM_MARIADB.map((c) => `\`${c.name}\` ${c.maria}`).join(", ")}) CHARACTER SET utf8mb4`);
    await admin.query(`INSERT INTO ${database}.from_maria VALUES (1, ${FROM_MARIADB.map((c) => c.value).join(", ")}), (2, ${FROM_MARIADB.map(() => "NULL").join(", ")})`);
    await sql(pgDb.url, `CREATE TABLE from_maria (id integer PRIMARY KEY, ${FROM_MARIADB.map((c) => `"${c.name}" ${c.pg}`).join(", ")})`);
    const columns = ["id", ...FROM_MARIADB.map((c) => c.name)];
    const f = await createFixture({
      sourceUrl: pgDb.url,
      source: { connectorName: "MariaDB", config: mariaConfig() },
      destination: { connectorName: "Postgresql", config: pgConnectorConfig(pgDb.url), catalog: catalogOf(tableStream("from_maria")) },
      query: `SELECT ${columns.map((c) => `\`${c}\``).join(", ")} FROM from_maria`,
      sync: { configuration: columns.map((c) => ({ from: c, to: c, mapping_type: "standard" })) },
    });
    const r = await run(f);
    expect(r.records.filter((x) => x.status === "failed").map((x) => x.error)).toEqual([]);
    const rows = await sql(pgDb.url, `SELECT id, ${FROM_MARIADB.map((c) => `"${c.name}"::text AS "${c.name}"`).join(", ")} FROM from_maria ORDER BY id`);
    for (const c of FROM_MARIADB) {
      expect(rows[0][c.name], `column "${c.name}"`).toBe(c.arrives);
      expect(rows[1][c.name], `column "${c.name}" (NULL)`).toBeNull();
    }
    // A re-run finds nothing changed.
    const again = await run(f);
    expect(again.run).toMatchObject({ totalRows: 0, skippedRows: 2 });
  });
});

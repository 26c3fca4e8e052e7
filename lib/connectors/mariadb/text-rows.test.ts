// MariaDB's COPY text rows (the pass-through path) against a real server, found through MARIADB_URL
// (e.g. mysql://root@127.0.0.1:3306/test). Without it the whole file is skipped, saying why.
import { CopyLines } from "@/lib/db/pg-wire/line-batch";
import mysql from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Row, TextColumn } from "../types";
import { uniqueName } from "@/tests/support/connectors";
import { expectTextBatches } from "@/tests/support/text-batches";
import { mariadbDestination } from "./destination";
import { poolFor } from "./pool";
import { mariadbSource } from "./source";
import { RowLines } from "./row-lines";
import { lineOf } from "./text-rows";
import { textTypeOf } from "./text-upsert";

const MARIADB_URL = process.env.MARIADB_URL;
const SKIP_REASON = "MARIADB_URL is not set (e.g. MARIADB_URL=mysql://root@127.0.0.1:3306/test), so the MariaDB text-row tests are skipped";
if (!MARIADB_URL) console.warn(`[text-rows.test.ts] ${SKIP_REASON}`);

const url = new URL(MARIADB_URL ?? "mysql://root@127.0.0.1:3306/test");
const database = uniqueName("ds_text_maria");
const config = (): Row => ({ host: url.hostname, port: url.port || "3306", username: decodeURIComponent(url.username), password: decodeURIComponent(url.password), database });
const source = mariadbSource.textRows!;
const destination = mariadbDestination.textRows!;

describe("lineOf", () => {
  it("keeps a hostile server's tab or line break inside its field: values mysql2 hands on as sent are escaped too", () => {
    // A DECIMAL, a long BIGINT or a date string arrives as the server's text; a server may put anything in it.
    const line = lineOf(["1\t2\n3", "2024-01-01 00:00:00\n4\t5", "a\tb", null, 7], ["plain", "timestamp", "text", "plain", "plain"]);
    expect(line.includes("\n")).toBe(false);
    expect(line.split("\t")).toEqual(["1\\t2\\n3", "2024-01-01 00:00:00\\n4\\t5+00", "a\\tb", "\\N", "7"]);
  });
});

describe("textTypeOf", () => {
  it("names the PostgreSQL type whose text a column takes, and nothing for the others", () => {
    expect(["int(11)", "bigint(20) unsigned", "tinyint(1)", "smallint(5) unsigned zerofill"].map(textTypeOf)).toEqual(Array(4).fill("bigint"));
    expect(["decimal(10,2)", "float", "double", "date", "datetime(6)", "timestamp(6)", "varchar(20)", "longtext"].map(textTypeOf)).toEqual([
      "numeric",
      "real",
      "double precision",
      "date",
      "timestamp without time zone",
      "timestamp with time zone",
      "text",
      "text",
    ]);
    for (const other of ["blob", "varbinary(10)", "enum('a')", "set('a')", "time", "year(4)", "bit(1)"]) expect(textTypeOf(other)).toBe(`mariadb ${other.replace(/\(.*\)/, "")}`);
  });
});

describe.skipIf(!MARIADB_URL)(MARIADB_URL ? "MariaDB COPY text" : `MariaDB COPY text (skipped: ${SKIP_REASON})`, () => {
  let admin: mysql.Connection;
  const rows = async (table: string) => (await admin.query(`SELECT * FROM ${database}.${table} ORDER BY id`))[0] as Row[];

  beforeAll(async () => {
    admin = await mysql.createConnection({ host: url.hostname, port: Number(url.port || 3306), user: decodeURIComponent(url.username), password: decodeURIComponent(url.password) });
    await admin.query(`CREATE DATABASE ${database} CHARACTER SET utf8mb4`);
    await admin.query("SET time_zone = '+00:00'");
    await admin.query(`CREATE TABLE ${database}.kinds (id INT PRIMARY KEY, big BIGINT UNSIGNED, amount DECIMAL(20,4), f FLOAT, d DOUBLE,
      day DATE, at DATETIME(6), stamp TIMESTAMP(6) NULL, label VARCHAR(50), kind ENUM('a','b c'), doc JSON, bytes BLOB, clock TIME)`);
    await admin.query(`INSERT INTO ${database}.kinds (id, big, amount, f, d, day, at, stamp, label, kind) VALUES
      (1, 18446744073709551615, -12.5, 1.1, 0.1, '2024-02-29', '2024-02-29 01:02:03.000004', '2024-02-29 01:02:03.5', CONCAT('t', CHAR(9), 'n', CHAR(10), 'b\\\\', CHAR(13)), 'b c'),
      (2, 9007199254740993, 0, -0.5, 1e300, '1000-01-01', '9999-12-31 23:59:59', '1970-01-01 00:00:01', 'NULL', 'a'),
      (3, 5, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
      (4, 6, 1, 1, 1, '2000-01-01', '2000-01-01', '2000-01-01', '\\\\N', 'a'),
      (5, 7, 1, 1, 1, '2000-01-01', '2000-01-01', '2000-01-01', 'emoji \u{1F600} ünï', 'a')`);
    await admin.query(`CREATE TABLE ${database}.target (id INT PRIMARY KEY, label VARCHAR(8), stamp TIMESTAMP(6) NULL)`);
  });

  afterAll(async () => {
    await mariadbDestination.close?.(config());
    await admin?.query(`DROP DATABASE IF EXISTS ${database}`);
    await admin?.end();
  });

  const TEXT_COLUMNS = "id, big, amount, f, d, day, at, stamp, label, kind";

  it("offers only queries whose every column has a text (JSON, BLOB and TIME take the JSON path)", async () => {
    const columns = await source.columns(config(), { query: `SELECT ${TEXT_COLUMNS} FROM kinds`, batchSize: 10 });
    expect(columns?.map((c) => c.type)).toEqual(["integer", "numeric", "numeric", "real", "double precision", "date", "timestamp without time zone", "timestamp with time zone", "text", "text"]);
    for (const column of ["doc", "bytes", "clock"]) expect(await source.columns(config(), { query: `SELECT id, ${column} FROM kinds`, batchSize: 10 }), column).toBeUndefined();
  });

  it("reads lines that decode to exactly the rows read() gives (the JSON path's values), in batches", async () => {
    const options = { query: `SELECT ${TEXT_COLUMNS} FROM kinds ORDER BY id`, batchSize: 2 };
    const columns = (await source.columns(config(), options)) as TextColumn[];
    const batches: string[][] = [];
    for await (const batch of source.read(config(), options)) batches.push([...batch]);
    expect(batches.map((b) => b.length)).toEqual([2, 2, 1]);
    const lines = batches.flat();
    expect(lines[0].split("\t").slice(7)).toEqual(["2024-02-29 01:02:03.500000+00", "t\\tn\\nb\\\\\\r", "b c"]);
    expect(lines[2].split("\t")[8]).toBe("\\N");
    expect(lines[3].split("\t")[8]).toBe("\\\\N");
    const json: Row[] = [];
    for await (const batch of mariadbSource.read(config(), options)) json.push(...batch);
    expect(lines.map((l) => source.decode(l, columns))).toEqual(json);
    expect(json[1]).toMatchObject({ big: "9007199254740993", label: "NULL" });
  });

  it("ends a batch at batchSize lines or once its lines hold batchChars characters, whichever comes first", async () => {
    // Lines of 3 to 102 characters: batches of different line counts.
    const query = "WITH RECURSIVE s(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM s WHERE g < 300) SELECT g AS id, REPEAT('x', g % 100) AS pad FROM s ORDER BY g";
    await expectTextBatches(source.read(config(), { query, batchSize: 40, batchChars: 1000 }), 300, { lines: 40, chars: 1000 });
  });

  it("makes each line straight from the row's packet, byte for byte the line mysql2's own values give", async () => {
    await admin.query(`CREATE TABLE ${database}.packets (id INT PRIMARY KEY, small SMALLINT(5) ZEROFILL, big BIGINT(20) UNSIGNED ZEROFILL,
      neg BIGINT, f FLOAT, d DOUBLE, amount DECIMAL(30,10), at TIMESTAMP(6) NULL, label MEDIUMTEXT, latin VARCHAR(20) CHARACTER SET latin1)`);
    await admin.query(`INSERT INTO ${database}.packets VALUES
      (1, 7, 18446744073709551615, -9223372036854775808, 3.40282e38, 1.7976931348623157e308, -12345678901234567890.0123456789, '2024-02-29 01:02:03.5', CONCAT('a', CHAR(9), CHAR(10), CHAR(13), '\\\\'), 'caf\u00e9'),
      (2, 0, 5, 9007199254740993, -0.5, 0.30000000000000004, 0, '1970-01-01 00:00:01', REPEAT('\u00fc', 300), ''),
      (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
      (4, 65535, 1, -1, 1e-30, -1e-300, 1, NULL, REPEAT('x\ty', 40000), 'NULL'),
      (5, 1, 2, 3, 123456.7, 123456789.12345679, 0.5, '2038-01-19 03:14:07.999999', '\u{1F600}', '\\N')`);
    const query = "SELECT * FROM packets ORDER BY id";
    const reader = vi.spyOn(RowLines.prototype, "next");
    const lines: string[] = [];
    try {
      for await (const batch of source.read(config(), { query, batchSize: 10 })) lines.push(...batch);
      // Read from the packets, not from mysql2's values (a mysql2 that stops calling the hook fails here).
      expect(reader).toHaveBeenCalledTimes(5);
    } finally {
      reader.mockRestore();
    }
    const plain = await mysql.createConnection({ host: url.hostname, port: Number(url.port || 3306), user: decodeURIComponent(url.username), password: decodeURIComponent(url.password), database, supportBigNumbers: true, dateStrings: true, timezone: "Z" });
    try {
      await plain.query("SET time_zone = '+00:00'");
      const [values] = await plain.query({ sql: query, rowsAsArray: true });
      const kinds = ["plain", "plain", "plain", "plain", "plain", "plain", "plain", "timestamp", "text", "text"] as const;
      expect(lines).toEqual((values as unknown[][]).map((row) => lineOf(row, kinds)));
    } finally {
      await plain.end();
    }
    expect(lines[0].split("\t").slice(1, 3)).toEqual(["7", "18446744073709551615"]);
    expect(lines[3].split("\t")[8]).toHaveLength(40000 * 4);
  });

  it("fails a read whose query fails after its first rows, with the server's error", async () => {
    const query = "SELECT seq, IF(seq = 5000, (SELECT 1 UNION SELECT 2), seq) AS v FROM seq_1_to_10000";
    const lines: string[] = [];
    await expect(
      (async () => {
        for await (const batch of source.read(config(), { query, batchSize: 100 })) lines.push(...batch);
      })(),
    ).rejects.toThrow(/more than 1 row/);
    expect(lines.every((l) => /^\d+\t\d+$/.test(l))).toBe(true);
  });

  it("bounds the wait for rows by the query timeout, and stops cleanly when the consumer stops early", async () => {
    const slow = source.read({ ...config(), query_timeout: 1 }, { query: "SELECT SLEEP(3) AS s", batchSize: 10 })[Symbol.asyncIterator]();
    await expect(slow.next()).rejects.toThrow(/did not return rows within 1 s/);
    for await (const batch of source.read(config(), { query: "SELECT seq FROM seq_1_to_100000", batchSize: 10 })) {
      expect(batch).toHaveLength(10);
      break;
    }
    let running = -1;
    for (let attempt = 0; attempt < 50 && running !== 0; attempt++) {
      const [found] = await admin.query("SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE INFO LIKE 'SELECT * FROM (%seq_1_to_100000%'");
      running = Number((found as Row[])[0].n);
      if (running !== 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(running).toBe(0);
  });

  it("upserts lines by LOAD DATA: escapes, NULL against 'NULL', instants, a key that exists", async () => {
    const stream = (await mariadbDestination.discover(config())).streams.find((s) => s.name === "target")!;
    const target = await destination.target(config(), stream);
    expect(target).toMatchObject({ primaryKey: ["id"], writable: true });
    await admin.query(`INSERT INTO ${database}.target VALUES (2, 'stale', NULL)`);
    const lines = ["1\ta\\tb\\f\\v\\\\\t2024-01-01 10:00:00.25+00", "2\tNULL\t\\N", "3\t\\N\t1970-01-01 00:00:01+00", "4\t\\\\N\t\\N", "5\t\u{1F600}ü\t\\N"];
    const first = await destination.upsert(config(), stream, ["id", "label", "stamp"], CopyLines.ofTexts(lines), { likelyNew: true });
    expect(first).toEqual({ ok: true, keysExisted: true });
    const [stamps] = await admin.query(`SELECT id, DATE_FORMAT(stamp, '%Y-%m-%d %H:%i:%s.%f') AS stamp FROM ${database}.target ORDER BY id`);
    expect((stamps as Row[]).map((r) => r.stamp)).toEqual(["2024-01-01 10:00:00.250000", null, "1970-01-01 00:00:01.000000", null, null]);
    expect((await rows("target")).map((r) => r.label)).toEqual(["a\tb\f\v\\", "NULL", null, "\\N", "\u{1F600}ü"]);
    // New keys only: straight into the table.
    expect(await destination.upsert(config(), stream, ["id", "label"], CopyLines.ofTexts(["6\tsix"]), { likelyNew: true })).toEqual({ ok: true, keysExisted: false });
  });

  it("refuses a batch with a value MariaDB would change (all or nothing), for the engine to send row by row", async () => {
    const stream = (await mariadbDestination.discover(config())).streams.find((s) => s.name === "target")!;
    const before = await rows("target");
    for (const likelyNew of [true, false]) {
      const result = await destination.upsert(config(), stream, ["id", "label"], CopyLines.ofTexts(["1\tfresh", "7\tmuch too long", "8\tok"]), { likelyNew });
      expect(result).toMatchObject({ ok: false });
      expect(!result.ok && result.error).toMatch(/too long|truncated/i);
      expect(await rows("target")).toEqual(before);
    }
  });

  it("LOAD DATA LOCAL reads only the stream handed to its own query: the pool serves no file to any other", async () => {
    const entry = await poolFor(config());
    await expect(entry.pool.query(`LOAD DATA LOCAL INFILE '/etc/hostname' INTO TABLE ${database}.target (label)`)).rejects.toThrow();
    expect((await rows("target")).length).toBe(6);
  });
});

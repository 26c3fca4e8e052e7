// MariaDB source and destination against a real server, found through MARIADB_URL
// (e.g. mysql://root@127.0.0.1:3306/test). Without it the whole file is skipped, saying why.
import { existsSync } from "node:fs";
import mysql from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Row } from "../types";
import { closedPort, uniqueName } from "@/tests/support/connectors";
import { sqlDestinationContract } from "@/tests/support/sql-destination-contract";
import { mariaDatetime, mariadbDestination } from "./destination";
import { mariadbSource } from "./source";

const MARIADB_URL = process.env.MARIADB_URL;
const SKIP_REASON = "MARIADB_URL is not set (e.g. MARIADB_URL=mysql://root@127.0.0.1:3306/test), so the MariaDB tests are skipped";
if (!MARIADB_URL) console.warn(`[mariadb.test.ts] ${SKIP_REASON}`);

const url = new URL(MARIADB_URL ?? "mysql://root@127.0.0.1:3306/test");
const database = uniqueName("ds_conn_maria");
const pwUser = uniqueName("ds_pw");

function config(overrides: Row = {}): Row {
  return {
    host: url.hostname,
    port: url.port || "3306",
    username: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database,
    connect_timeout: 5,
    ...overrides,
  };
}

describe.skipIf(!MARIADB_URL)(MARIADB_URL ? "MariaDB" : `MariaDB (skipped: ${SKIP_REASON})`, () => {
  let admin: mysql.Connection;
  const sql = (text: string, values: unknown[] = []) => admin.query(text, values);

  beforeAll(async () => {
    admin = await mysql.createConnection({ host: url.hostname, port: Number(url.port || 3306), user: decodeURIComponent(url.username), password: decodeURIComponent(url.password), multipleStatements: true });
    await sql(`CREATE DATABASE ${database}`);
    await sql(`CREATE TABLE ${database}.people (
      id INT PRIMARY KEY, name VARCHAR(100) NOT NULL, email VARCHAR(200) NULL, score DECIMAL(10,2) NULL, big BIGINT NULL,
      born DATE NULL, seen_at TIMESTAMP NULL DEFAULT NULL, extra JSON NULL, created_at DATETIME DEFAULT CURRENT_TIMESTAMP)`);
    await sql(`CREATE TABLE ${database}.events (id BIGINT PRIMARY KEY, payload VARCHAR(300) NOT NULL, updated_at DATETIME NOT NULL)`);
    // 100,000 rows from a recursive CTE, in one statement.
    await sql("SET SESSION max_recursive_iterations = 200000");
    await sql(`INSERT INTO ${database}.events (id, payload, updated_at)
      WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < 100000)
      SELECT n, CONCAT(REPEAT('x', 200), n), TIMESTAMP('2024-01-01 00:00:00') + INTERVAL n SECOND FROM g`);
    await sql(`CREATE USER '${pwUser}'@'%' IDENTIFIED BY 'right-password'`);
    await sql(`CREATE USER '${pwUser}'@'localhost' IDENTIFIED BY 'right-password'`);
    await sql(`GRANT ALL ON ${database}.* TO '${pwUser}'@'%'`);
    await sql(`GRANT ALL ON ${database}.* TO '${pwUser}'@'localhost'`);
  }, 60_000);

  afterAll(async () => {
    await mariadbDestination.close?.(config());
    await sql(`DROP DATABASE IF EXISTS ${database}`);
    await sql(`DROP USER IF EXISTS '${pwUser}'@'%'`);
    await sql(`DROP USER IF EXISTS '${pwUser}'@'localhost'`);
    await admin.end();
  });

  describe("check", () => {
    it("connects and reports the server version", async () => {
      expect(await mariadbSource.check(config())).toEqual({ ok: true, details: expect.stringMatching(/^Connected to MariaDB \d+/) });
      // root holds ALL PRIVILEGES (FILE among them): the source's check warns, the destination's does not.
      expect((await mariadbSource.check(config())).details).toContain("holds ALL PRIVILEGES on every database, so anyone who may write this workspace's models can read the database server's files");
      expect((await mariadbDestination.check(config())).details).not.toContain("Warning");
      expect((await mariadbSource.check(config({ username: pwUser, password: "right-password" }))).details).not.toContain("Warning");
    });

    it("explains an unreachable port", async () => {
      const result = await mariadbSource.check(config({ port: await closedPort() }));
      expect(result).toEqual({ ok: false, details: expect.stringMatching(/connection refused/) });
    });

    it("explains an unknown database", async () => {
      expect(await mariadbSource.check(config({ database: "no_such_db_x" }))).toEqual({
        ok: false,
        details: expect.stringContaining('Database "no_such_db_x" does not exist'),
      });
    });

    it("explains a wrong password without echoing it", async () => {
      expect((await mariadbSource.check(config({ username: pwUser, password: "right-password" }))).ok).toBe(true);
      const bad = await mariadbSource.check(config({ username: pwUser, password: "wrong-password-123" }));
      expect(bad).toEqual({ ok: false, details: `Access denied for user "${pwUser}". Check the username and password.` });
    });

    it("explains an unknown host", async () => {
      const result = await mariadbSource.check(config({ host: "no-such-host.invalid" }));
      expect(result).toEqual({ ok: false, details: 'Could not resolve the host name "no-such-host.invalid". Check the host.' });
    });
  });

  describe("source", () => {
    it("discovers tables with column types as JSON Schema", async () => {
      const catalog = await mariadbSource.discover(config());
      const people = catalog.streams.find((s) => s.name === "people");
      expect(people?.primary_key).toEqual(["id"]);
      expect(people?.json_schema).toMatchObject({
        properties: {
          id: { type: "integer" },
          name: { type: "string" },
          email: { type: ["string", "null"] },
          big: { type: ["integer", "string", "null"] },
          born: { type: ["string", "null"], format: "date" },
        },
      });
      expect(catalog.streams.map((s) => s.name).sort()).toEqual(["events", "people"]);
    });

    it("previews a query with JSON-safe values", async () => {
      await sql(`INSERT INTO ${database}.people (id, name, big, born, seen_at, score) VALUES
        (900, 'Preview', 9007199254740993, '2020-02-29', '2024-05-01 10:00:00', 12.5),
        (899, 'Safe', -9007199254740991, NULL, NULL, NULL)`);
      const result = await mariadbSource.query!(config(), `SELECT id, name, big, born, seen_at, score FROM people WHERE id IN (899, 900);`, 5);
      // BIGINT: a number while exact (|n| ≤ 2^53 − 1), else the digits; DECIMAL keeps its exact text.
      expect(result.rows.sort((a, b) => Number(b.id) - Number(a.id))).toEqual([
        { id: 900, name: "Preview", big: "9007199254740993", born: "2020-02-29", seen_at: "2024-05-01T10:00:00Z", score: "12.50" },
        { id: 899, name: "Safe", big: -9007199254740991, born: null, seen_at: null, score: null },
      ]);
      expect(result.columns.map((c) => c.name)).toEqual(["id", "name", "big", "born", "seen_at", "score"]);
      expect((await mariadbSource.query!(config(), "SELECT * FROM events", 3)).rows).toHaveLength(3);
      await sql(`DELETE FROM ${database}.people WHERE id IN (899, 900)`);
    });

    it("fingerprints rows as their JSON with BIGINT as digits (what the engine hashed before), and yields them as read() does", async () => {
      await sql(`INSERT INTO ${database}.people (id, name, big, score) VALUES (910, 'Fp', 5550000001, 1.5), (911, 'Huge', 9007199254740993, NULL)`);
      const options = { query: "SELECT id, name, big, score FROM people WHERE id IN (910, 911)", batchSize: 10 };
      const batches = [];
      for await (const batch of mariadbSource.readFingerprinted!(config(), { ...options, fingerprint: { seed: "seed", primaryKey: "big" } })) {
        batches.push(batch);
      }
      const read: Row[] = [];
      for await (const rows of mariadbSource.read(config(), options)) read.push(...rows);
      expect(read).toEqual([
        { id: 910, name: "Fp", big: 5550000001, score: "1.50" },
        { id: 911, name: "Huge", big: "9007199254740993", score: null },
      ]);
      expect(batches).toHaveLength(1);
      const [batch] = batches;
      expect([batch.row(0), batch.row(1)]).toEqual(read);
      expect(batch.keyValues).toEqual([5550000001, "9007199254740993"]);
      // md5(seed + JSON) of the row as BIGINT-as-string reads gave it: states stored then still match.
      const { createHash } = await import("node:crypto");
      const legacy = (row: Row) => createHash("md5").update(`seed${JSON.stringify(row)}`).digest("hex");
      expect(batch.fingerprints).toEqual([
        legacy({ id: 910, name: "Fp", big: "5550000001", score: "1.50" }),
        legacy({ id: 911, name: "Huge", big: "9007199254740993", score: null }),
      ]);
      await sql(`DELETE FROM ${database}.people WHERE id IN (910, 911)`);
    });

    it("refuses a preview query that ends in LIMIT or OFFSET", async () => {
      await expect(mariadbSource.query!(config(), "SELECT * FROM events LIMIT 10", 5)).rejects.toThrow(/must not end with LIMIT or OFFSET/);
      await expect(mariadbSource.query!(config(), "SELECT * FROM events LIMIT 10, 20;", 5)).rejects.toThrow(/LIMIT or OFFSET/);
    });

    it("never runs a model that is not one SELECT: DROP TABLE, CREATE USER, a second statement (reads and previews)", async () => {
      await sql(`CREATE TABLE ${database}.victim (id INT PRIMARY KEY)`);
      const attacker = uniqueName("ds_evil");
      const attacks = [
        `DROP TABLE victim`,
        `CREATE USER '${attacker}'@'%' IDENTIFIED BY 'x'`,
        `SELECT 1 AS id; DROP TABLE victim`,
        `SELECT 'a\\'; DROP TABLE victim; -- '`,
        `/* comment */ DROP TABLE victim`,
        `SELECT * FROM victim INTO OUTFILE '/tmp/${attacker}'`,
        // Closing the wrapping subquery early, its tail commented out:
        `SELECT 'x' AS a) AS s INTO OUTFILE '/tmp/${attacker}-2' #`,
        `SELECT 1 /*!) AS s INTO OUTFILE '/tmp/${attacker}-3' */`,
        `SELECT * FROM victim FOR UPDATE`,
      ];
      for (const query of attacks) {
        const read = async () => {
          for await (const batch of mariadbSource.read(config(), { query, batchSize: 10 })) void batch;
        };
        await expect(read(), query).rejects.toThrow();
        await expect(mariadbSource.query!(config(), query, 5), query).rejects.toThrow();
      }
      const [tables] = await sql(`SELECT COUNT(*) AS n FROM information_schema.tables WHERE table_schema = ? AND table_name = 'victim'`, [database]);
      expect((tables as Row[])[0].n).toBe(1);
      for (const suffix of ["", "-2", "-3"]) expect(existsSync(`/tmp/${attacker}${suffix}`)).toBe(false);
      const [users] = await sql(`SELECT COUNT(*) AS n FROM mysql.user WHERE user = ?`, [attacker]);
      expect((users as Row[])[0].n).toBe(0);
      // A SELECT with a `;` or a keyword inside a string or comment is still one SELECT.
      const rows: Row[] = [];
      for await (const batch of mariadbSource.read(config(), { query: "SELECT 'DROP TABLE victim; x' AS s -- ; DROP", batchSize: 10 })) rows.push(...batch);
      expect(rows).toEqual([{ s: "DROP TABLE victim; x" }]);
    });

    it("reads 100,000 rows in batches without holding more than one batch", async () => {
      const heapBefore = process.memoryUsage().heapUsed;
      let peakHeap = heapBefore;
      let total = 0;
      let batches = 0;
      let maxHeld = 0;
      for await (const batch of mariadbSource.read(config(), { query: "SELECT id, payload, updated_at FROM events ORDER BY id", batchSize: 1000 })) {
        batches += 1;
        total += batch.length;
        maxHeld = Math.max(maxHeld, batch.length);
        peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
      }
      expect(total).toBe(100000);
      expect(batches).toBe(100);
      expect(maxHeld).toBeLessThanOrEqual(1000);
      expect(peakHeap - heapBefore).toBeLessThan(80 * 1024 * 1024);
    });

    it("reads incrementally from a cursor value, ordered by the cursor column", async () => {
      const rows: Row[] = [];
      for await (const batch of mariadbSource.read(config(), {
        query: "SELECT id, updated_at FROM events",
        batchSize: 4,
        cursorField: "updated_at",
        cursorValue: "2024-01-02 03:46:30",
      })) {
        rows.push(...batch);
      }
      // events.id is BIGINT: numbers, as they are exact.
      expect(rows.map((r) => r.id)).toEqual(Array.from({ length: 11 }, (_, i) => 99990 + i));
      expect(rows[0].updated_at).toBe("2024-01-02T03:46:30");
    });

    it("bounds previews and each read batch by the query timeout", async () => {
      await expect(mariadbSource.query!(config({ query_timeout: 1 }), "SELECT SLEEP(3) AS s", 1)).rejects.toThrow(
        "The query was stopped after the 1 s statement timeout.",
      );
      const rows = mariadbSource.read(config({ query_timeout: 1 }), { query: "SELECT SLEEP(3) AS s", batchSize: 10 })[Symbol.asyncIterator]();
      await expect(rows.next()).rejects.toThrow(/did not return rows within 1 s/);
    });

    it("stops cleanly when the consumer stops early", async () => {
      for await (const batch of mariadbSource.read(config(), { query: "SELECT * FROM events", batchSize: 10 })) {
        expect(batch).toHaveLength(10);
        break;
      }
      // The server notices the closed socket on its next write; give it a moment.
      let running = -1;
      for (let attempt = 0; attempt < 50 && running !== 0; attempt++) {
        const [rows] = await admin.query<mysql.RowDataPacket[]>(
          "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE INFO LIKE 'SELECT * FROM events%'",
        );
        running = Number(rows[0].n);
        if (running !== 0) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(running).toBe(0);
    });
  });

  it("writes ISO instants (a PostgreSQL timestamptz as the engine carries it) into DATETIME and TIMESTAMP columns, in UTC", async () => {
    const stream = (await mariadbDestination.discover(config())).streams.find((s) => s.name === "people")!;
    const outcomes = await mariadbDestination.write(
      config(),
      [
        { key: "950", action: "upsert", payload: { id: 950, name: "z", seen_at: "2026-01-01T00:00:01.000Z", created_at: "2026-03-04T05:06:07+02:00" } },
        { key: "951", action: "upsert", payload: { id: 951, name: "plain", seen_at: "2026-01-01 10:00:00", created_at: "2026-01-01T10:00:00.5Z" } },
      ],
      { stream, batch: true },
    );
    expect(outcomes.map((o) => [o.key, o.ok, o.error])).toEqual([
      ["950", true, undefined],
      ["951", true, undefined],
    ]);
    const [rows] = await admin.query<mysql.RowDataPacket[]>(
      `SELECT id, DATE_FORMAT(seen_at, '%Y-%m-%d %T') AS seen_at, DATE_FORMAT(created_at, '%Y-%m-%d %T') AS created_at FROM ${database}.people WHERE id IN (950, 951) ORDER BY id`,
    );
    // The admin session's own time zone shows TIMESTAMP columns; DATETIME is stored as sent.
    const [[{ tz }]] = await admin.query<mysql.RowDataPacket[]>("SELECT @@session.time_zone AS tz");
    expect(rows.map((r) => r.created_at)).toEqual(["2026-03-04 03:06:07", "2026-01-01 10:00:00"]);
    if (tz === "+00:00" || tz === "UTC") expect(rows.map((r) => r.seen_at)).toEqual(["2026-01-01 00:00:01", "2026-01-01 10:00:00"]);
    await sql(`DELETE FROM ${database}.people WHERE id IN (950, 951)`);
  });

  sqlDestinationContract(() => ({
    destination: mariadbDestination,
    config,
    peopleTable: `${database}.people`,
    select: async (text) => (await admin.query<mysql.RowDataPacket[]>(text))[0].map((r) => ({ ...r })),
    batchSize: 1000,
    messages: { notNull: /^Column 'name' cannot be null$/, badInteger: /Incorrect integer value/ },
  }));
});

describe("mariaDatetime", () => {
  it("turns ISO instants into UTC DATETIME text, keeping the fraction, and leaves anything else alone", () => {
    expect(mariaDatetime("2026-01-01T00:00:01.000Z")).toBe("2026-01-01 00:00:01.000");
    expect(mariaDatetime("2026-01-01T00:30:00+02:00")).toBe("2025-12-31 22:30:00");
    expect(mariaDatetime("2026-01-01T23:30:00.123456-0130")).toBe("2026-01-02 01:00:00.123456");
    for (const other of ["2026-01-01 10:00:00", "2026-01-01", "not a date", "2026-13-45T99:00:00Z"]) expect(mariaDatetime(other)).toBe(other);
  });
});

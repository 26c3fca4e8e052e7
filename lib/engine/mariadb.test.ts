// A PostgreSQL → MariaDB sync through the engine, against the MariaDB server named by MARIADB_URL
// (e.g. mysql://root@127.0.0.1:3306/test). Without it the file is skipped, saying why.
import { randomBytes } from "node:crypto";
import mysql from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { createScratchDatabase, useTestDatabase } from "@/tests/support/db";
import { loadRunContext } from "./context";
import { fingerprint } from "./diff";
import { stopEngine, triggerSync } from "./index";
import { executeRun } from "./execute-run";
import { catalogOf, createFixture, createPeople, pgConnectorConfig, reloadRun, runRecords, sql, stateRows, tableStream, type Fixture } from "./test-support";

const MARIADB_URL = process.env.MARIADB_URL;
const SKIP_REASON = "MARIADB_URL is not set (e.g. MARIADB_URL=mysql://root@127.0.0.1:3306/test), so the MariaDB destination test is skipped";
if (!MARIADB_URL) console.warn(`[lib/engine/mariadb.test.ts] ${SKIP_REASON}`);

useTestDatabase();

describe.skipIf(!MARIADB_URL)(MARIADB_URL ? "a PostgreSQL → MariaDB sync" : `a PostgreSQL → MariaDB sync (skipped: ${SKIP_REASON})`, () => {
  const url = new URL(MARIADB_URL ?? "mysql://root@127.0.0.1:3306/test");
  const database = `ds_engine_${randomBytes(4).toString("hex")}`;
  let admin: mysql.Connection;
  let source: { url: string; drop(): Promise<void> };
  let f: Fixture;

  const mariaRows = async () => {
    const [rows] = await admin.query(`SELECT id, name, email, score FROM ${database}.people ORDER BY id`);
    return rows as Record<string, unknown>[];
  };
  const pgRows = () => sql(source.url, "SELECT id, name, email, score FROM people ORDER BY id");
  /** A sync of the MariaDB table `table` into the PostgreSQL table of the same name, column for column. */
  const fromMariaDb = (table: string, columns: string[], primaryKey?: string) =>
    createFixture({
      sourceUrl: source.url,
      source: {
        connectorName: "MariaDB",
        config: { host: url.hostname, port: Number(url.port || 3306), username: decodeURIComponent(url.username), password: decodeURIComponent(url.password), database },
      },
      destination: { connectorName: "Postgresql", config: pgConnectorConfig(source.url), catalog: catalogOf(tableStream(table)) },
      query: `SELECT ${columns.join(", ")} FROM ${table}`,
      primaryKey,
      sync: { configuration: columns.map((c) => ({ from: c, to: c, mapping_type: "standard" })) },
    });

  beforeAll(async () => {
    admin = await mysql.createConnection({
      host: url.hostname,
      port: Number(url.port || 3306),
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
    });
    await admin.query(`CREATE DATABASE ${database}`);
    await admin.query(`CREATE TABLE ${database}.people (id INT PRIMARY KEY, name VARCHAR(100) NOT NULL, email VARCHAR(200), score INT)`);
    source = await createScratchDatabase("ds_src");
    await createPeople(source.url, 3000);
    f = await createFixture({
      sourceUrl: source.url,
      destination: {
        connectorName: "MariaDB",
        config: {
          host: url.hostname,
          port: Number(url.port || 3306),
          username: decodeURIComponent(url.username),
          password: decodeURIComponent(url.password),
          database,
        },
        catalog: catalogOf(tableStream("people")),
      },
      query: "SELECT id, name, email, score FROM people",
      sync: {
        configuration: [
          { from: "id", to: "id", mapping_type: "standard" },
          { from: "name", to: "name", mapping_type: "standard" },
          { from: "email", to: "email", mapping_type: "standard" },
          { from: "score", to: "score", mapping_type: "standard" },
        ],
      },
    });
  });

  afterAll(async () => {
    await stopEngine();
    await admin?.query(`DROP DATABASE IF EXISTS ${database}`);
    await admin?.end();
    await source?.drop();
  });

  it("copies every row, then only what changed", async () => {
    const first = await triggerSync(f.workspaceId, f.syncId);
    expect(await executeRun(first.id)).toBe("success");
    expect(await reloadRun(first.id)).toMatchObject({ successfulRows: 3000, failedRows: 0 });
    expect(await mariaRows()).toEqual(await pgRows());

    await sql(source.url, "UPDATE people SET email = NULL, score = 999 WHERE id IN (2, 2999)");
    const second = await triggerSync(f.workspaceId, f.syncId);
    expect(await executeRun(second.id)).toBe("success");
    const records = await runRecords(second.id);
    expect(records.map((r) => [r.primaryKey, r.action, r.status]).sort()).toEqual([
      ["2", "destination_update", "success"],
      ["2999", "destination_update", "success"],
    ]);
    expect(await mariaRows()).toEqual(await pgRows());
  });

  it("a MariaDB source: BIGINT as numbers in records, fingerprints as before the change, no re-send (the JSON path)", async () => {
    // The text path fingerprints its lines with a seed of its own (docs/architecture.md, "Two paths").
    process.env.ENGINE_PASS_THROUGH = "0";
    onTestFinished(() => void delete process.env.ENGINE_PASS_THROUGH);
    await admin.query(`CREATE TABLE ${database}.big_people (id BIGINT PRIMARY KEY, phone BIGINT, name VARCHAR(50))`);
    await admin.query(`INSERT INTO ${database}.big_people VALUES (1, 5550000001, 'Ada'), (9007199254740993, NULL, 'Huge')`);
    await sql(source.url, "CREATE TABLE big_people (id bigint PRIMARY KEY, phone bigint, name text)");
    const fixture = await fromMariaDb("big_people", ["id", "phone", "name"]);
    const first = await triggerSync(fixture.workspaceId, fixture.syncId);
    expect(await executeRun(first.id)).toBe("success");
    const records = await runRecords(first.id);
    expect(records.map((r) => r.record).sort((a, b) => String((a as { id: unknown }).id).length - String((b as { id: unknown }).id).length)).toEqual([
      { id: 1, phone: 5550000001, name: "Ada" },
      { id: "9007199254740993", phone: null, name: "Huge" },
    ]);
    // The states hold md5(seed + JSON) of the rows with BIGINT as strings, as the engine stored them
    // before BIGINT became numbers: states stored then match, so the change re-sends nothing.
    const { fingerprintSeed } = await loadRunContext(await reloadRun(first.id));
    const states = await stateRows(fixture.syncId);
    expect(states.map((st) => [st.primaryKey, st.fingerprint])).toEqual([
      ["1", fingerprint(fingerprintSeed, JSON.stringify({ id: "1", phone: "5550000001", name: "Ada" }))],
      ["9007199254740993", fingerprint(fingerprintSeed, JSON.stringify({ id: "9007199254740993", phone: null, name: "Huge" }))],
    ]);
    expect(await sql(source.url, "SELECT id::text, phone::text, name FROM big_people ORDER BY id")).toEqual([
      { id: "1", phone: "5550000001", name: "Ada" },
      { id: "9007199254740993", phone: null, name: "Huge" },
    ]);
    const again = await triggerSync(fixture.workspaceId, fixture.syncId);
    expect(await executeRun(again.id)).toBe("success");
    expect(await runRecords(again.id)).toHaveLength(0);
    expect(await reloadRun(again.id)).toMatchObject({ totalQueryRows: 2, skippedRows: 2, totalRows: 0 });
  });

  it("a key holding a NUL character (PostgreSQL text cannot) skips that row, not the whole run", async () => {
    await admin.query(`CREATE TABLE ${database}.coded (code VARCHAR(20) PRIMARY KEY, name VARCHAR(50))`);
    await admin.query(`INSERT INTO ${database}.coded VALUES ('a', 'Ada'), (CONCAT('b', CHAR(0), 'c'), 'Nul'), ('d', 'Dee')`);
    await sql(source.url, "CREATE TABLE coded (code text PRIMARY KEY, name text)");
    const fixture = await fromMariaDb("coded", ["code", "name"], "code");
    for (let attempt = 0; attempt < 2; attempt++) {
      const run = await triggerSync(fixture.workspaceId, fixture.syncId);
      expect(await executeRun(run.id)).toBe("success");
      expect(await reloadRun(run.id)).toMatchObject({ totalQueryRows: 3, skippedRows: attempt === 0 ? 1 : 3, failedRows: 0 });
    }
    expect(await sql(source.url, "SELECT code, name FROM coded ORDER BY code")).toEqual([
      { code: "a", name: "Ada" },
      { code: "d", name: "Dee" },
    ]);
  });
});

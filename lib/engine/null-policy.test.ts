// null_policy through the engine: a sync whose email mapping skips empty values never overwrites an
// email the destination has with null, on PostgreSQL and on MariaDB, while rows that carry an email
// (and fields with the default policy) are written in the same batches; the pass-through path
// steps aside for such a sync.
import { randomBytes } from "node:crypto";
import mysql from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Row } from "@/lib/connectors/types";
import { createScratchDatabase, useTestDatabase } from "@/tests/support/db";
import { executeRun } from "./execute-run";
import { stopEngine, triggerSync } from "./index";
import { catalogOf, createFixture, pgConnectorConfig, reloadRun, runRecords, sql, tableStream, readPath } from "./test-support";

useTestDatabase();

const ROWS = 1200;
const MAPPING = [
  { from: "id", to: "id", mapping_type: "standard" },
  { from: "name", to: "name", mapping_type: "standard" },
  { from: "email", to: "email", mapping_type: "standard", null_policy: "skip" },
  { from: "score", to: "score", mapping_type: "standard" },
];
/** Seeded in the destination before the sync: every row has a good email and score. */
const seeded = (id: number) => ({ id, name: `Old ${id}`, email: `kept${id}@example.com`, score: -1 });
/** What the sync must leave: the source's name and score; the source's email where it has one, else the seeded one. */
const expected = (id: number) => ({ id, name: `Person ${id}`, email: id % 3 === 0 ? `kept${id}@example.com` : `new${id}@example.com`, score: id % 5 === 0 ? null : id });

let source: { url: string; drop(): Promise<void> };

beforeAll(async () => {
  source = await createScratchDatabase("ds_null_src");
  // Every third row has no email, every fifth no score (written as null: default policy).
  await sql(
    source.url,
    `CREATE TABLE people AS SELECT g AS id, 'Person ' || g AS name,
       CASE WHEN g % 3 = 0 THEN NULL ELSE 'new' || g || '@example.com' END AS email,
       CASE WHEN g % 5 = 0 THEN NULL ELSE g END AS score
     FROM generate_series(1, ${ROWS}) g`,
  );
  await sql(source.url, "ALTER TABLE people ADD PRIMARY KEY (id)");
});

afterAll(async () => {
  await stopEngine();
  await source?.drop();
});

async function syncOnce(destination: { connectorName: string; config: Row; table: string }) {
  const f = await createFixture({
    sourceUrl: source.url,
    destination: { connectorName: destination.connectorName, config: destination.config, catalog: catalogOf(tableStream(destination.table, { batch_size: 500 })) },
    query: "SELECT id, name, email, score FROM people",
    sync: { configuration: MAPPING },
  });
  const run = await triggerSync(f.workspaceId, f.syncId);
  expect(await executeRun(run.id)).toBe("success");
  const done = await reloadRun(run.id);
  expect(done).toMatchObject({ successfulRows: ROWS, failedRows: 0 });
  return { run: done, records: await runRecords(run.id) };
}

const ids = Array.from({ length: ROWS }, (_, i) => i + 1);

describe("null_policy skip through a run", () => {
  it("PostgreSQL: an empty email leaves the destination's email as it was; the lines are mapped, not passed through", async () => {
    const destination = await createScratchDatabase("ds_null_dst");
    try {
      await sql(destination.url, "CREATE TABLE people (id integer PRIMARY KEY, name text NOT NULL, email text, score integer)");
      await sql(destination.url, `INSERT INTO people SELECT g, 'Old ' || g, 'kept' || g || '@example.com', -1 FROM generate_series(1, ${ROWS}) g`);
      const { run, records } = await syncOnce({ connectorName: "Postgresql", config: pgConnectorConfig(destination.url), table: "people" });
      // Pass-through would have written the null: the lines go through the mapping instead.
      expect(readPath(run)).toBe("mapped lines");
      expect(records.every((r) => r.status === "success")).toBe(true);
      expect(await sql(destination.url, "SELECT id, name, email, score FROM people ORDER BY id")).toEqual(ids.map(expected));
    } finally {
      await destination.drop();
    }
  });

  const MARIADB_URL = process.env.MARIADB_URL;
  it.skipIf(!MARIADB_URL)("MariaDB: the same", async () => {
    const url = new URL(MARIADB_URL as string);
    const database = `ds_null_${randomBytes(4).toString("hex")}`;
    const admin = await mysql.createConnection({ host: url.hostname, port: Number(url.port || 3306), user: decodeURIComponent(url.username), password: decodeURIComponent(url.password) });
    try {
      await admin.query(`CREATE DATABASE ${database}`);
      await admin.query(`CREATE TABLE ${database}.people (id INT PRIMARY KEY, name VARCHAR(100) NOT NULL, email VARCHAR(200), score INT)`);
      await admin.query(`INSERT INTO ${database}.people (id, name, email, score) VALUES ?`, [ids.map((id) => Object.values(seeded(id)))]);
      await syncOnce({
        connectorName: "MariaDB",
        config: { host: url.hostname, port: Number(url.port || 3306), username: decodeURIComponent(url.username), password: decodeURIComponent(url.password), database },
        table: "people",
      });
      const [rows] = await admin.query(`SELECT id, name, email, score FROM ${database}.people ORDER BY id`);
      expect(rows).toEqual(ids.map(expected));
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${database}`);
      await admin.end();
    }
  });
});

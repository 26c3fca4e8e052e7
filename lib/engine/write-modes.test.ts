// Write modes end to end (docs/write-modes.md): PostgreSQL → PostgreSQL, PostgreSQL → MariaDB (with
// MARIADB_URL) and PostgreSQL → a real HTTP server on 127.0.0.1, one sync per mode, each run through
// the engine: what the destination holds afterwards, the records (skipped ones with their reason),
// the counters, and what the next runs do with skipped rows.
import { randomBytes } from "node:crypto";
import mysql from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Row } from "@/lib/connectors/types";
import { prisma } from "@/lib/db/client";
import type { WriteMode } from "@/lib/generated/prisma/enums";
import { createScratchDatabase, useTestDatabase } from "@/tests/support/db";
import { json, startHttpServer } from "@/tests/support/connectors";
import { loadDestination } from "@/lib/connectors/registry";
import { executeRun } from "./execute-run";
import { stopEngine, triggerSync } from "./index";
import { catalogOf, createFixture, pgConnectorConfig, reloadRun, runRecords, sql, tableStream, type Fixture } from "./test-support";

useTestDatabase();

const MAPPING = ["id", "name", "score"].map((c) => ({ from: c, to: c, mapping_type: "standard" }));

let source: { url: string; drop(): Promise<void> };
let tables = 0;

/** A source table of `ids` (name "Person <id>", score id) and its model query. */
async function sourceTable(ids: number[]): Promise<string> {
  const name = `src_${++tables}`;
  await sql(source.url, `CREATE TABLE ${name} (id integer PRIMARY KEY, name text NOT NULL, score integer)`);
  await sql(source.url, `INSERT INTO ${name} SELECT g, 'Person ' || g, g FROM unnest($1::int[]) g`, [ids]);
  return name;
}

async function run(f: Fixture) {
  const r = await triggerSync(f.workspaceId, f.syncId);
  expect(await executeRun(r.id)).toBe("success");
  const records = await runRecords(r.id);
  return {
    run: await reloadRun(r.id),
    /** [key, action, status] sorted by key. */
    records: records.map((x) => [x.primaryKey, x.action, x.status] as const).sort((a, b) => Number(a[0]) - Number(b[0])),
    reasons: Object.fromEntries(records.filter((x) => x.status === "skipped").map((x) => [x.primaryKey, x.error])),
  };
}

const setMode = (f: Fixture, writeMode: WriteMode) => prisma().sync.update({ where: { id: f.syncId }, data: { writeMode } });

beforeAll(async () => {
  source = await createScratchDatabase("ds_wm_src");
});

afterAll(async () => {
  await stopEngine();
  await source?.drop();
});

/** A SQL destination: its connector settings, and plain statements on it. */
interface SqlTarget {
  connectorName: string;
  config: () => Row;
  exec(text: string): Promise<void>;
  rows(table: string): Promise<{ id: number; name: string }[]>;
}

function sqlModes(label: string, target: () => SqlTarget) {
  describe(`write modes into ${label}`, () => {
    /** A destination table holding `ids` with the name "Old <id>", and a sync of a source of `sourceIds` into it. */
    async function setup(mode: WriteMode, sourceIds: number[], destinationIds: number[]) {
      const t = target();
      const table = `dst_${++tables}_${mode}`;
      await t.exec(`CREATE TABLE ${table} (id integer PRIMARY KEY, name varchar(100) NOT NULL, score integer)`);
      for (const id of destinationIds) await t.exec(`INSERT INTO ${table} (id, name, score) VALUES (${id}, 'Old ${id}', 0)`);
      const from = await sourceTable(sourceIds);
      const f = await createFixture({
        sourceUrl: source.url,
        destination: { connectorName: t.connectorName, config: t.config(), catalog: catalogOf(tableStream(table)) },
        query: `SELECT id, name, score FROM ${from}`,
        // Deletes here are on purpose: the blast-radius guard (its own tests in plan/) stays out of the way.
        sync: { configuration: MAPPING, writeMode: mode, guard: { max_delete_percent: null } },
      });
      return { f, from, table, rows: () => t.rows(table), exec: t.exec };
    }

    it("upsert creates new keys and updates existing ones", async () => {
      const s = await setup("upsert", [1, 2, 3, 4], [1, 2]);
      const first = await run(s.f);
      expect(first.run).toMatchObject({ totalRows: 4, successfulRows: 4, skippedRows: 0, failedRows: 0 });
      expect(await s.rows()).toEqual([1, 2, 3, 4].map((id) => ({ id, name: `Person ${id}` })));
    });

    it("update updates keys already there, skips new ones with a reason, creates nothing; a skipped key that appears later is updated when its row changes", async () => {
      const s = await setup("update", [1, 2, 3, 4, 5, 6], [1, 2, 3, 100]);
      const first = await run(s.f);
      expect(first.records).toEqual([
        ["1", "destination_update", "success"],
        ["2", "destination_update", "success"],
        ["3", "destination_update", "success"],
        ["4", "destination_insert", "skipped"],
        ["5", "destination_insert", "skipped"],
        ["6", "destination_insert", "skipped"],
      ]);
      expect(first.reasons["4"]).toBe("update mode: key 4 is not in the destination, so it was not created.");
      expect(first.run).toMatchObject({ totalQueryRows: 6, totalRows: 6, successfulRows: 3, skippedRows: 3, failedRows: 0 });
      expect(await s.rows()).toEqual([
        { id: 1, name: "Person 1" },
        { id: 2, name: "Person 2" },
        { id: 3, name: "Person 3" },
        { id: 100, name: "Old 100" },
      ]);

      // Unchanged rows, skipped or delivered, are left alone.
      const again = await run(s.f);
      expect(again.records).toEqual([]);
      expect(again.run).toMatchObject({ totalQueryRows: 6, totalRows: 0, skippedRows: 6 });

      // Key 5 appears in the destination; its row changes: it is updated. Key 6 changes but is still absent.
      await s.exec(`INSERT INTO ${s.table} (id, name, score) VALUES (5, 'Made by hand', 0)`);
      await sql(source.url, `UPDATE ${s.from} SET name = 'Person ' || id || ' v2' WHERE id IN (5, 6)`);
      const third = await run(s.f);
      expect(third.records).toEqual([
        ["5", "destination_update", "success"],
        ["6", "destination_insert", "skipped"],
      ]);
      expect((await s.rows()).find((r) => r.id === 5)).toEqual({ id: 5, name: "Person 5 v2" });
      expect((await s.rows()).map((r) => r.id)).toEqual([1, 2, 3, 5, 100]);
    });

    it("insert creates new keys and skips keys already there, which keep their values; an unchanged skip is not retried", async () => {
      const s = await setup("insert", [1, 2, 3, 4], [1, 2]);
      const first = await run(s.f);
      expect(first.records).toEqual([
        ["1", "destination_update", "skipped"],
        ["2", "destination_update", "skipped"],
        ["3", "destination_insert", "success"],
        ["4", "destination_insert", "success"],
      ]);
      expect(first.reasons["1"]).toBe("insert mode: key 1 is already in the destination, so it was not updated.");
      expect(first.run).toMatchObject({ totalRows: 4, successfulRows: 2, skippedRows: 2, failedRows: 0 });
      expect(await s.rows()).toEqual([
        { id: 1, name: "Old 1" },
        { id: 2, name: "Old 2" },
        { id: 3, name: "Person 3" },
        { id: 4, name: "Person 4" },
      ]);
      expect((await run(s.f)).records).toEqual([]);

      // A row this sync created changes: insert mode does not update it (skipped once, not on every run).
      await sql(source.url, `UPDATE ${s.from} SET name = 'Changed' WHERE id = 3`);
      const changed = await run(s.f);
      expect(changed.records).toEqual([["3", "destination_update", "skipped"]]);
      expect((await s.rows()).find((r) => r.id === 3)).toEqual({ id: 3, name: "Person 3" });
      expect((await run(s.f)).records).toEqual([]);
    });

    it("insert: a key that is there after all (a race past the check) fails that row alone, the others are written", async () => {
      const t = target();
      const table = `dst_${++tables}_race`;
      await t.exec(`CREATE TABLE ${table} (id integer PRIMARY KEY, name varchar(100) NOT NULL, score integer)`);
      await t.exec(`INSERT INTO ${table} (id, name, score) VALUES (2, 'Racer', 0)`);
      const destination = await loadDestination(t.connectorName);
      const outcomes = await destination.write(
        t.config(),
        [1, 2, 3].map((id) => ({ key: String(id), action: "insert" as const, payload: { id, name: `Person ${id}`, score: id } })),
        { stream: tableStream(table), batch: true },
      );
      expect(outcomes.map((o) => [o.key, o.ok]).sort()).toEqual([
        ["1", true],
        ["2", false],
        ["3", true],
      ]);
      expect(outcomes.find((o) => o.key === "2")?.error).toMatch(/duplicate/i);
      expect(await t.rows(table)).toEqual([
        { id: 1, name: "Person 1" },
        { id: 2, name: "Racer" },
        { id: 3, name: "Person 3" },
      ]);
      await destination.close?.(t.config());
    });

    it("existingKeys answers one flag per key, in order, for a batch of 5000 (bad values are simply absent)", async () => {
      const t = target();
      const table = `dst_${++tables}_presence`;
      await t.exec(`CREATE TABLE ${table} (id integer PRIMARY KEY, name varchar(100) NOT NULL, score integer)`);
      await t.exec(`INSERT INTO ${table} (id, name, score) VALUES ${Array.from({ length: 1500 }, (_, i) => `(${(i + 1) * 2}, 'x', 0)`).join(", ")}`);
      const destination = await loadDestination(t.connectorName);
      const keys = [...Array.from({ length: 5000 }, (_, i) => ({ id: 5000 - i })), { id: "not a number" }, { id: "2" }];
      const found = await destination.existingKeys!(t.config(), tableStream(table), keys);
      expect(found).toHaveLength(keys.length);
      const expected = keys.map((k) => typeof k.id === "number" ? k.id % 2 === 0 && k.id <= 3000 : k.id === "2");
      expect(found).toEqual(expected);
      await destination.close?.(t.config());
    });

    it("mirror upserts and deletes the keys that left the model, and only those it delivered", async () => {
      const s = await setup("mirror", [1, 2, 3], [50]);
      const first = await run(s.f);
      expect(first.run).toMatchObject({ successfulRows: 3, skippedRows: 0 });
      await sql(source.url, `DELETE FROM ${s.from} WHERE id IN (2, 3)`);
      const second = await run(s.f);
      expect(second.records).toEqual([
        ["2", "destination_delete", "success"],
        ["3", "destination_delete", "success"],
      ]);
      expect(await s.rows()).toEqual([
        { id: 1, name: "Person 1" },
        { id: 50, name: "Old 50" },
      ]);
    });

    it("leaving update mode sends the rows it skipped", async () => {
      const s = await setup("update", [1, 2], [1]);
      expect((await run(s.f)).run).toMatchObject({ successfulRows: 1, skippedRows: 1 });
      await setMode(s.f, "upsert");
      const after = await run(s.f);
      expect(after.run).toMatchObject({ successfulRows: 2, skippedRows: 0 });
      expect(await s.rows()).toEqual([
        { id: 1, name: "Person 1" },
        { id: 2, name: "Person 2" },
      ]);
    });
  });
}


sqlModes("PostgreSQL", () => ({
  connectorName: "Postgresql",
  config: () => pgConnectorConfig(source.url),
  exec: async (text) => void (await sql(source.url, text)),
  rows: (table) => sql<{ id: number; name: string }>(source.url, `SELECT id, name FROM ${table} ORDER BY id`),
}));

const MARIADB_URL = process.env.MARIADB_URL;
if (!MARIADB_URL) console.warn("[lib/engine/write-modes.test.ts] MARIADB_URL is not set, so the MariaDB write modes are skipped");

describe.skipIf(!MARIADB_URL)("MariaDB", () => {
  const url = new URL(MARIADB_URL ?? "mysql://root@127.0.0.1:3306/test");
  const database = `ds_wm_${randomBytes(4).toString("hex")}`;
  let admin: mysql.Connection;
  const config = () => ({
    host: url.hostname,
    port: Number(url.port || 3306),
    username: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database,
  });
  beforeAll(async () => {
    admin = await mysql.createConnection({ host: url.hostname, port: Number(url.port || 3306), user: decodeURIComponent(url.username), password: decodeURIComponent(url.password) });
    await admin.query(`CREATE DATABASE ${database}`);
  });
  afterAll(async () => {
    await admin?.query(`DROP DATABASE IF EXISTS ${database}`);
    await admin?.end();
  });
  sqlModes("MariaDB", () => ({
    connectorName: "MariaDB",
    config,
    exec: async (text) => {
      await admin.query(`USE ${database}`);
      await admin.query(text);
    },
    rows: async (table) => (await admin.query(`SELECT id, name FROM ${database}.${table} ORDER BY id`))[0] as { id: number; name: string }[],
  }));
});

describe("write modes into an HTTP destination (presence: what this sync delivered)", () => {
  let server: Awaited<ReturnType<typeof startHttpServer>>;
  const previousAllow = process.env.OUTBOUND_ALLOW_PRIVATE;
  beforeAll(async () => {
    process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
    server = await startHttpServer((_req, res) => json(res, 200, { ok: true }));
  });
  afterAll(async () => {
    process.env.OUTBOUND_ALLOW_PRIVATE = previousAllow;
    await server?.close();
  });

  /** A sync of a source of `ids` to the server; each run's requests as "METHOD /path". */
  async function setup(mode: WriteMode, ids: number[]) {
    const from = await sourceTable(ids);
    const f = await createFixture({
      sourceUrl: source.url,
      destination: {
        connectorName: "Http",
        config: {
          destination_url: `${server.url}/contacts`,
          method: "POST",
          update_method: "PATCH",
          update_url: `${server.url}/contacts/{{ id }}`,
          delete_method: "DELETE",
          delete_url: `${server.url}/contacts/{{ id }}?name={{ name }}`,
          timeout: 5,
        },
        catalog: catalogOf({ name: "webhook", url: server.url, json_schema: { type: "object" }, batch_support: false, batch_size: 1, request_method: "POST" }),
      },
      query: `SELECT id, name, score FROM ${from}`,
      // Deletes here are on purpose: the blast-radius guard (its own tests in plan/) stays out of the way.
      sync: { configuration: MAPPING, writeMode: mode, guard: { max_delete_percent: null } },
    });
    const sent = async () => {
      const out = (await run(f));
      const requests = server.requests.splice(0).map((r) => `${r.method} ${r.url}`).sort();
      return { ...out, requests };
    };
    server.requests.length = 0;
    return { f, from, sent };
  }

  it("upsert posts new rows and patches changed ones at their templated URL", async () => {
    const s = await setup("upsert", [1, 2]);
    expect((await s.sent()).requests).toEqual(["POST /contacts", "POST /contacts"]);
    await sql(source.url, `UPDATE ${s.from} SET score = 99 WHERE id = 2`);
    expect((await s.sent()).requests).toEqual(["PATCH /contacts/2"]);
  });

  it("insert sends new rows once; a changed row it delivered is skipped, not sent again", async () => {
    const s = await setup("insert", [1, 2, 3]);
    expect((await s.sent()).requests).toEqual(["POST /contacts", "POST /contacts", "POST /contacts"]);
    await sql(source.url, `UPDATE ${s.from} SET score = 99 WHERE id = 2`);
    const changed = await s.sent();
    expect(changed.requests).toEqual([]);
    expect(changed.records).toEqual([["2", "destination_update", "skipped"]]);
    expect(changed.reasons["2"]).toBe("insert mode: key 2 was delivered by this sync before, so it was not sent again.");
    expect((await s.sent()).records).toEqual([]);
  });

  it("update sends nothing for keys it never delivered, then updates the delivered ones", async () => {
    const s = await setup("update", [1, 2]);
    const first = await s.sent();
    expect(first.requests).toEqual([]);
    expect(first.run).toMatchObject({ totalRows: 2, skippedRows: 2, successfulRows: 0, failedRows: 0 });
    expect(first.reasons["1"]).toBe(
      "update mode: key 1 was never delivered by this sync (HTTP webhook cannot be asked which keys it has), so it was not created.",
    );
    // Delivered in insert mode, then back to update mode: every row is looked at once and updated.
    await setMode(s.f, "insert");
    expect((await s.sent()).requests).toEqual(["POST /contacts", "POST /contacts"]);
    await setMode(s.f, "update");
    expect((await s.sent()).requests).toEqual(["PATCH /contacts/1", "PATCH /contacts/2"]);
    await sql(source.url, `INSERT INTO ${s.from} VALUES (3, 'New', 3)`);
    await sql(source.url, `UPDATE ${s.from} SET score = 7 WHERE id = 1`);
    const next = await s.sent();
    expect(next.requests).toEqual(["PATCH /contacts/1"]);
    expect(next.records).toEqual([
      ["1", "destination_update", "success"],
      ["3", "destination_insert", "skipped"],
    ]);
  });

  it("mirror deletes the keys that left the model at the delete URL", async () => {
    const s = await setup("mirror", [1, 2, 3]);
    expect((await s.sent()).requests).toHaveLength(3);
    await sql(source.url, `DELETE FROM ${s.from} WHERE id = 3`);
    const second = await s.sent();
    // A delete's payload holds only the key: the template's other fields render empty.
    expect(second.requests).toEqual(["DELETE /contacts/3?name="]);
    expect(second.records).toEqual([["3", "destination_delete", "success"]]);
  });
});

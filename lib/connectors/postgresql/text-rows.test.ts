// The PostgreSQL COPY text path against a real server: how a read's session is set up, and how
// first-sync COPYs into one table share it.
import { CopyLines } from "@/lib/db/pg-wire/line-batch";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Row } from "../types";
import { streamFor, uniqueName } from "@/tests/support/connectors";
import { expectTextBatches } from "@/tests/support/text-batches";
import { postgresqlDestination } from "./destination";
import { postgresqlSource } from "./source";

const HOST = process.env.PG_TEST_HOST ?? "127.0.0.1";
const PORT = Number(process.env.PG_TEST_PORT ?? 5432);
const schema = uniqueName("ds_text_rows");

const config = (): Row => ({
  host: HOST,
  port: String(PORT),
  database: "test",
  schema,
  credentials: { auth_type: "username/password", username: "postgres", password: "" },
  connect_timeout: 5,
});

let admin: pg.Client;
const sql = (text: string, values: unknown[] = []) => admin.query(text, values);

beforeAll(async () => {
  admin = new pg.Client({ host: HOST, port: PORT, user: "postgres", database: "test" });
  await admin.connect();
  await sql(`CREATE SCHEMA ${schema}`);
  await sql(`CREATE TABLE ${schema}.items (id integer PRIMARY KEY, name text NOT NULL)`);
});

afterAll(async () => {
  await postgresqlDestination.close?.(config());
  await sql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.end();
});

async function readBatches<T>(batches: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const batch of batches) all.push(batch);
  return all;
}

async function readAll<T>(rows: AsyncIterable<Iterable<T>>): Promise<T[]> {
  const all: T[] = [];
  for await (const batch of rows) all.push(...batch);
  return all;
}

describe("reads", () => {
  // A synchronized scan joins one already running on the table and wraps around (connection.ts).
  it("start their scans at the table's first block, on both paths", async () => {
    const query = "SELECT current_setting('synchronize_seqscans') AS s";
    const text = postgresqlSource.textRows;
    if (!text) throw new Error("the PostgreSQL source reads COPY text");
    expect(await readAll(text.read(config(), { query, batchSize: 10 }))).toEqual(["off"]);
    expect(await readAll(postgresqlSource.read(config(), { query, batchSize: 10 }))).toEqual([{ s: "off" }]);
  });
});

describe("lines held as the wire's bytes", () => {
  it(
    "are the rows' UTF-8 text; a SQL_ASCII database's bytes that are not UTF-8 fail the read on both paths",
    { timeout: 30_000 },
    async () => {
      const read = postgresqlSource.textRows!.read;
      const query = "SELECT 1 AS id, 'café ✓ 𝄞' AS label, E'tab\\there' AS note";
      const [held] = await readBatches(read(config(), { query, batchSize: 10 }));
      expect(held.bytes).not.toBeNull();
      expect([...held]).toEqual(["1\tcafé ✓ 𝄞\ttab\\there"]);
      const database = `${schema}_ascii`;
      await sql(
        `CREATE DATABASE ${database} ENCODING 'SQL_ASCII' TEMPLATE template0 LC_COLLATE 'C' LC_CTYPE 'C'`,
      );
      try {
        const ascii = { ...config(), database };
        const asciiQuery = "SELECT 1 AS id, E'caf\\xff' AS label";
        await expect(readBatches(read(ascii, { query: asciiQuery, batchSize: 10 }))).rejects.toThrow(
          /invalid byte sequence for encoding "UTF8"/,
        );
        await expect(
          readAll(postgresqlSource.read(ascii, { query: asciiQuery, batchSize: 10 })),
        ).rejects.toThrow(/invalid byte sequence for encoding "UTF8"/);
      } finally {
        await sql(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      }
    },
  );
});

describe("text batches", () => {
  it("end at batchSize lines or once their lines hold batchChars characters, whichever comes first", async () => {
    const read = postgresqlSource.textRows!.read;
    // Lines of 3 to 102 characters: batches of different line counts.
    const query = "SELECT g AS id, repeat('x', g % 100) AS pad FROM generate_series(1, 300) AS g ORDER BY g";
    await expectTextBatches(read(config(), { query, batchSize: 40, batchChars: 1000 }), 300, { lines: 40, chars: 1000 });
    // Without batchChars only the line count ends a batch.
    const counted: number[] = [];
    for await (const batch of read(config(), { query, batchSize: 40 })) counted.push(batch.length);
    expect(counted).toEqual([...Array<number>(7).fill(40), 20]);
  });
});

describe("first-sync COPYs into one table", () => {
  /** The sessions of this test's COPYs: waiting on a lock, or between statements in their transaction. */
  const copies = async () =>
    (
      await sql(
        `SELECT state, wait_event_type, query FROM pg_stat_activity
          WHERE datname = 'test' AND pid <> pg_backend_pid() AND query LIKE $1`,
        [`%${schema}%`],
      )
    ).rows as { state: string; wait_event_type: string | null; query: string }[];

  it("take turns in one process, each in its own transaction", async () => {
    const upsert = postgresqlDestination.textRows?.upsert;
    if (!upsert) throw new Error("the PostgreSQL destination writes COPY text");
    const locker = new pg.Client({ host: HOST, port: PORT, user: "postgres", database: "test" });
    await locker.connect();
    try {
      // Holds every insert into the table until released: the first COPY waits on it.
      await locker.query("BEGIN");
      await locker.query(`LOCK TABLE ${schema}.items IN SHARE MODE`);
      const stream = streamFor("items");
      const lines = (from: number) =>
        CopyLines.ofTexts(Array.from({ length: 100 }, (_, i) => `${from + i}\tname ${from + i}`));
      const first = upsert(config(), stream, ["id", "name"], lines(1), { likelyNew: true });
      const second = upsert(config(), stream, ["id", "name"], lines(101), { likelyNew: true });
      let waiting: Awaited<ReturnType<typeof copies>> = [];
      for (let i = 0; i < 200 && waiting.length === 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        waiting = (await copies()).filter((c) => c.wait_event_type === "Lock");
      }
      expect(waiting.map((c) => c.query)).toEqual([expect.stringMatching(/^COPY /)]);
      // Given time, the second still waits for its turn here, not on the server's lock.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect((await copies()).filter((c) => c.wait_event_type === "Lock")).toHaveLength(1);
      await locker.query("COMMIT");
      expect(await first).toEqual({ ok: true, keysExisted: false });
      expect(await second).toEqual({ ok: true, keysExisted: false });
      expect((await sql(`SELECT count(*)::int AS n, max(id) AS top FROM ${schema}.items`)).rows).toEqual([{ n: 200, top: 200 }]);
    } finally {
      await locker.end();
    }
  });
});

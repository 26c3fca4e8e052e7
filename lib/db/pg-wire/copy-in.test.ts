// copyIn against a real PostgreSQL: every chunk lands in order, and a copy that fails (a bad value
// mid-way, a statement refused before any data, a connection lost) rejects with the server's error
// while the connection goes on, as a statement's error would.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createScratchDatabase } from "@/tests/support/db";
import { copyIn } from "./copy-in";

let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
let main: pg.Client;
const client = () => main;
beforeAll(async () => {
  scratch = await createScratchDatabase("ds_copy_in_wire");
  main = new pg.Client({ connectionString: scratch.url });
  await main.connect();
  await main.query("CREATE TABLE t (id int PRIMARY KEY, label text)");
});
afterAll(async () => {
  await main?.end();
  await scratch?.drop();
});

const lines = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `${from + i}\trow ${from + i} ✓\n`).join("");

describe("copyIn", () => {
  it("copies many chunks in order, empty ones skipped, and counts the rows", async () => {
    const chunks = [Buffer.from(lines(0, 5000)), Buffer.alloc(0), Buffer.from(lines(5000, 5001).slice(0, 4)), Buffer.from(lines(5000, 5001).slice(4)), Buffer.from(lines(5001, 20_000))];
    expect(await copyIn(client(), "COPY t FROM STDIN", chunks)).toBe(20_000);
    const { rows } = await client().query("SELECT count(*)::int AS n, bool_and(label = 'row ' || id || ' ✓') AS same FROM t");
    expect(rows[0]).toEqual({ n: 20_000, same: true });
    expect(await copyIn(client(), "COPY t FROM STDIN", [])).toBe(0);
  });

  it("copies an input of many megabytes, sent in corked slices, whole and in order", { timeout: 60_000 }, async () => {
    const text = lines(1_000_000, 1_250_000);
    const chunks: Buffer[] = [];
    for (let at = 0; at < text.length; at += 64 * 1024) chunks.push(Buffer.from(text.slice(at, at + 64 * 1024)));
    expect(chunks.reduce((n, c) => n + c.length, 0)).toBeGreaterThan(4 * 1024 * 1024);
    expect(await copyIn(client(), "COPY t FROM STDIN", chunks)).toBe(250_000);
    const { rows } = await client().query("SELECT count(*)::int AS n, bool_and(label = 'row ' || id || ' ✓') AS same FROM t WHERE id >= 1000000");
    expect(rows[0]).toEqual({ n: 250_000, same: true });
    await client().query("DELETE FROM t WHERE id >= 1000000");
  });

  it("a copy its query timeout gave up on before the server answered writes nothing once the server does", async () => {
    const [copier, locker] = [new pg.Client({ connectionString: scratch.url, query_timeout: 300 }), new pg.Client({ connectionString: scratch.url })];
    try {
      await Promise.all([copier.connect(), locker.connect()]);
      await locker.query("BEGIN");
      await locker.query("LOCK TABLE t IN ACCESS EXCLUSIVE MODE");
      // The copy waits for the lock; pg gives up on it after 300 ms while the server still waits.
      await expect(copyIn(copier, "COPY t FROM STDIN", [Buffer.from(lines(400_000, 400_100))])).rejects.toThrow(/timeout/);
      await locker.query("COMMIT");
      // The server now answers CopyInResponse: the copy is failed, not fed and committed.
      // Queued behind the copy until the server is done with it; its own timeout, not the client's 300 ms.
      expect((await copier.query({ text: "SELECT 1 AS one", query_timeout: 60_000 } as pg.QueryConfig)).rows).toEqual([{ one: 1 }]);
      const { rows } = await locker.query("SELECT count(*)::int AS n FROM t WHERE id >= 400000 AND id < 400100");
      expect(rows[0].n).toBe(0);
    } finally {
      await Promise.all([copier.end().catch(() => undefined), locker.end().catch(() => undefined)]);
    }
  });

  it("rejects a bad value with the server's error, writes nothing, and the connection goes on", async () => {
    await client().query("BEGIN");
    await client().query("SAVEPOINT s");
    const bad = [Buffer.from(lines(100_000, 100_500)), Buffer.from("100500\tfine\nnot-a-number\toops\n"), Buffer.from(lines(100_501, 101_000))];
    await expect(copyIn(client(), "COPY t FROM STDIN", bad)).rejects.toMatchObject({ code: "22P02" });
    await client().query("ROLLBACK TO SAVEPOINT s");
    // A key that exists (23505) is found at the end, after every message was sent.
    await expect(copyIn(client(), "COPY t FROM STDIN", [Buffer.from(lines(200_000, 200_100) + lines(0, 1))])).rejects.toMatchObject({ code: "23505" });
    await client().query("ROLLBACK");
    const { rows } = await client().query("SELECT count(*)::int AS n FROM t WHERE id >= 100000");
    expect(rows[0].n).toBe(0);
  });

  it("rejects a statement the server refuses before any data", async () => {
    await expect(copyIn(client(), "COPY no_such_table FROM STDIN", [Buffer.from(lines(0, 10))])).rejects.toMatchObject({ code: "42P01" });
    expect((await client().query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
  });

  it("rejects when its backend is ended mid-copy, then on the client that can no longer query", async () => {
    const [copier, locker] = [new pg.Client({ connectionString: scratch.url }), new pg.Client({ connectionString: scratch.url })];
    copier.on("error", () => undefined);
    try {
      await Promise.all([copier.connect(), locker.connect()]);
      const { rows } = await copier.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
      await locker.query("BEGIN");
      await locker.query("LOCK TABLE t IN ACCESS EXCLUSIVE MODE");
      // The copy waits for the lock, then its backend is ended under it.
      // The expectation is attached before the backend ends, so the rejection is never left unhandled.
      const copying = expect(copyIn(copier, "COPY t FROM STDIN", [Buffer.from(lines(300_000, 300_010))])).rejects.toThrow(/terminat/);
      await locker.query("SELECT pg_terminate_backend($1)", [rows[0].pid]);
      await copying;
      await expect(copyIn(copier, "COPY t FROM STDIN", [Buffer.from(lines(300_000, 300_010))])).rejects.toThrow(/not queryable|Connection terminated/);
      await locker.query("ROLLBACK");
    } finally {
      await Promise.all([copier.end().catch(() => undefined), locker.end().catch(() => undefined)]);
    }
  });
});

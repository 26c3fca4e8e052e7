// The DuckDB source against real files and a real DuckDB database in a temporary DUCKDB_DATA_DIR:
// check, discover, previews, streamed and fingerprinted reads, incremental cursors, and the
// attacks: files outside the workspace's directory, another workspace's files, writes, links.
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { WORKSPACE_ID_KEY } from "../adapter-config";
import type { Row } from "../types";
import { duckdbSource } from "./isolated";

// Each DuckDB call starts an isolated process: on a loaded 2-core machine one test takes minutes, not seconds.
vi.setConfig({ testTimeout: 240_000 });

let root: string;
const ws = (id: number, extra: Row = {}): Row => ({ [WORKSPACE_ID_KEY]: id, ...extra });

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const b of it) out.push(b);
  return out;
}

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), "ds-duckdb-"));
  process.env.DUCKDB_DATA_DIR = root;
  const dir = path.join(root, "workspace-1");
  await mkdir(path.join(dir, "sales"), { recursive: true });
  await mkdir(path.join(root, "workspace-2"));
  await writeFile(
    path.join(dir, "people.csv"),
    "id,name,score,joined\n1,ann,3.5,2024-01-02 03:04:05\n2,bob,4,2024-02-03 04:05:06\n3,cy,,2024-03-04 05:06:07\n",
  );
  await writeFile(
    path.join(dir, "events.json"),
    JSON.stringify([
      { id: 10, kind: "open" },
      { id: 11, kind: "close" },
    ]),
  );
  await writeFile(path.join(root, "workspace-2", "secret.csv"), "id,token\n1,other-tenant\n");
  await writeFile(path.join(root, "outside.csv"), "id\n1\n");
  await symlink("/etc/hostname", path.join(dir, "link.csv"));
  // A Parquet file and a database, written by an unrestricted DuckDB as an operator would.
  const instance = await DuckDBInstance.create(":memory:");
  const conn = await instance.connect();
  await conn.run(
    `COPY (SELECT i AS id, 'item ' || i AS label, i * 10000000000 AS big FROM range(1, 5001) t(i)) TO '${path.join(dir, "sales", "items.parquet")}' (FORMAT parquet)`,
  );
  await conn.run(`ATTACH '${path.join(dir, "warehouse.duckdb")}' AS w`);
  await conn.run("CREATE TABLE w.customers (id INTEGER PRIMARY KEY, email VARCHAR, updated_at TIMESTAMP)");
  await conn.run(
    "INSERT INTO w.customers SELECT i, 'c' || i || '@example.com', TIMESTAMP '2024-01-01' + INTERVAL (i) HOUR FROM range(1, 101) t(i)",
  );
  await conn.run("DETACH w");
  conn.closeSync();
  instance.closeSync();
});

afterAll(async () => {
  delete process.env.DUCKDB_DATA_DIR;
  await rm(root, { recursive: true, force: true });
});

describe("check", () => {
  it("connects and says what the workspace's directory holds", async () => {
    const result = await duckdbSource.check(ws(1, { database_file: "warehouse.duckdb" }));
    expect(result).toMatchObject({ ok: true });
    expect(result.details).toMatch(/Connected to DuckDB v?\d.*3 data files and the database file, read-only/);
  });

  it("fails with a sentence when the operator has not enabled it, or the workspace has no directory", async () => {
    const saved = process.env.DUCKDB_DATA_DIR;
    delete process.env.DUCKDB_DATA_DIR;
    expect((await duckdbSource.check(ws(1))).details).toMatch(/not enabled on this server.*DUCKDB_DATA_DIR/);
    process.env.DUCKDB_DATA_DIR = saved;
    expect(await duckdbSource.check(ws(3))).toEqual({
      ok: false,
      details: expect.stringMatching(/no data directory yet.*workspace-3/),
    });
    // Without the server's workspace id (a tenant cannot supply it: adapterConfig overwrites it).
    expect((await duckdbSource.check({})).ok).toBe(false);
  });

  it("refuses a database file outside the workspace's directory", async () => {
    for (const file of [
      "../workspace-2/secret.csv",
      "/etc/hostname",
      "sales/../../outside.csv",
      "missing.duckdb",
    ]) {
      const result = await duckdbSource.check(ws(1, { database_file: file }));
      expect(result.ok, file).toBe(false);
      expect(result.details).not.toContain(root);
    }
  });
});

describe("discover", () => {
  it("lists each file as a view and the database's tables with their keys", async () => {
    const catalog = await duckdbSource.discover(ws(1, { database_file: "warehouse.duckdb" }));
    const names = catalog.streams.map((s) => s.name).sort();
    expect(names).toEqual(["customers", "events.json", "people.csv", "sales/items.parquet"]);
    const customers = catalog.streams.find((s) => s.name === "customers");
    expect(customers?.primary_key).toEqual(["id"]);
    expect(customers?.json_schema).toMatchObject({
      properties: { id: { type: "integer" }, updated_at: { format: "date-time" } },
    });
  });
});

describe("query", () => {
  it("previews a model over a CSV file with types", async () => {
    const result = await duckdbSource.query!(
      ws(1),
      'SELECT id, name, score, joined FROM "people.csv" ORDER BY id',
      2,
    );
    expect(result.columns.map((c) => c.name)).toEqual(["id", "name", "score", "joined"]);
    expect(result.rows).toEqual([
      { id: 1, name: "ann", score: 3.5, joined: "2024-01-02T03:04:05.000Z" },
      { id: 2, name: "bob", score: 4, joined: "2024-02-03T04:05:06.000Z" },
    ]);
  });

  it("refuses what is not one SELECT, with DuckDB's own parser", async () => {
    await expect(duckdbSource.query!(ws(1), "COPY (SELECT 1) TO 'out.csv'", 5)).rejects.toThrow(/SELECT/);
    await expect(duckdbSource.query!(ws(1), "SELECT 1; SELECT 2", 5)).rejects.toThrow(/single statement/);
    await expect(duckdbSource.query!(ws(1), "SELECT * FROM nope", 5)).rejects.toThrow(/nope/);
  });

  it("cannot read files outside the workspace's directory, through any path or link", async () => {
    const attempts = [
      "SELECT * FROM read_csv('/etc/passwd')",
      `SELECT * FROM read_csv('${path.join(root, "workspace-2", "secret.csv")}')`,
      `SELECT * FROM read_csv('${path.join(root, "workspace-1", "..", "outside.csv")}')`,
      'SELECT * FROM "link.csv"',
      `SELECT * FROM read_text('${path.join(root, "workspace-1", "link.csv")}')`,
      "SELECT * FROM glob('/etc/*')",
      "SELECT * FROM read_csv('http://127.0.0.1:9/x.csv')",
    ];
    for (const sql of attempts) {
      const attempt = duckdbSource.query!(ws(1), sql, 5);
      await expect(attempt, sql).rejects.toThrow();
      const message = await attempt.catch((e: Error) => e.message);
      expect(message).not.toContain(root);
      expect(message).not.toMatch(/other-tenant|root:x/);
    }
    // The other workspace's file is not even a view here.
    await expect(duckdbSource.query!(ws(1), 'SELECT * FROM "secret.csv"', 5)).rejects.toThrow(/secret\.csv/);
  });

  it("cannot change its own limits, attach databases or install extensions", async () => {
    for (const sql of [
      "SELECT * FROM (SELECT current_setting('enable_external_access') AS v) WHERE v",
      "SELECT set_config('enable_external_access', 'true', false)",
    ]) {
      const rows = await duckdbSource.query!(ws(1), sql, 5)
        .then((r) => r.rows)
        .catch(() => []);
      expect(rows, sql).toEqual([]);
    }
    await expect(duckdbSource.query!(ws(1), "ATTACH '/tmp/x.db'", 5)).rejects.toThrow(/SELECT/);
    await expect(duckdbSource.query!(ws(1), "INSTALL httpfs", 5)).rejects.toThrow(/SELECT/);
    // DuckDB's query() table function runs a SQL string: it too takes only a SELECT.
    await expect(
      duckdbSource.query!(ws(1), "SELECT * FROM query('COPY (SELECT 1) TO ''x.csv''')", 5),
    ).rejects.toThrow(/SELECT/);
    // The server user's persistent DuckDB secrets are never loaded, and asking names no server path.
    expect((await duckdbSource.query!(ws(1), "SELECT * FROM duckdb_secrets()", 5)).rows).toEqual([]);
    expect(
      (await duckdbSource.query!(ws(1), "SELECT * FROM which_secret('s3://bucket/x', 's3')", 5)).rows,
    ).toEqual([]);
  });
});

describe("read", () => {
  it("streams a Parquet file in batches, 64-bit integers as numbers when exact", async () => {
    const batches = await collect(
      duckdbSource.read(ws(1), { query: 'SELECT * FROM "sales/items.parquet"', batchSize: 1500 }),
    );
    expect(batches.map((b) => b.length)).toEqual([1500, 1500, 1500, 500]);
    expect(batches[0][0]).toEqual({ id: 1, label: "item 1", big: 10000000000 });
    expect(batches[3][499]).toEqual({ id: 5000, label: "item 5000", big: 50000000000000 });
  });

  it("reads incrementally from a cursor, in cursor order", async () => {
    const options = {
      query: "SELECT * FROM customers",
      batchSize: 1000,
      cursorField: "updated_at",
      cursorValue: "2024-01-04T02:00:00.000Z",
    };
    const [rows] = await collect(duckdbSource.read(ws(1, { database_file: "warehouse.duckdb" }), options));
    // updated_at is 2024-01-01 plus `id` hours: ids 74 to 100 are at or after the cursor.
    expect(rows.map((r) => r.id)).toEqual(Array.from({ length: 27 }, (_, i) => 74 + i));
    expect(rows[0]).toEqual({ id: 74, email: "c74@example.com", updated_at: "2024-01-04T02:00:00.000Z" });
  });

  it("fingerprints rows in DuckDB: equal rows equal hashes, the seed changes them, rows parse on demand", async () => {
    const options = (seed: string) => ({
      query: 'SELECT * FROM "people.csv"',
      batchSize: 10,
      fingerprint: { seed, primaryKey: "id" },
    });
    const [a] = await collect(duckdbSource.readFingerprinted!(ws(1), options("s1")));
    const [b] = await collect(duckdbSource.readFingerprinted!(ws(1), options("s1")));
    const [c] = await collect(duckdbSource.readFingerprinted!(ws(1), options("s2")));
    expect(a.length).toBe(3);
    expect(a.keyValues).toEqual([1, 2, 3]);
    expect(a.fingerprints).toEqual(b.fingerprints);
    expect(new Set(a.fingerprints).size).toBe(3);
    expect(a.fingerprints[0]).toMatch(/^[0-9a-f]{32}$/);
    expect(c.fingerprints).not.toEqual(a.fingerprints);
    const [plain] = await collect(
      duckdbSource.read(ws(1), { query: 'SELECT * FROM "people.csv"', batchSize: 10 }),
    );
    expect([0, 1, 2].map((i) => a.row(i))).toEqual(plain);
  });

  it("a query that allocates past any limit fails alone: the server's memory stays as it was", async () => {
    // DuckDB builds this list outside its memory_limit (~9.5 GB when it ran in the server's process).
    const before = process.memoryUsage().rss;
    const bomb = duckdbSource.query!(
      ws(1, { memory_limit_mb: 64 }),
      "SELECT len(range(0, 1000000000)) AS n",
      1,
    );
    await expect(bomb).rejects.toThrow(/memory/i);
    expect(process.memoryUsage().rss - before).toBeLessThan(256 * 1024 * 1024);
    // The next query works: nothing was left broken.
    expect((await duckdbSource.query!(ws(1), "SELECT 1 AS one", 1)).rows).toEqual([{ one: 1 }]);
  });

  it("stops a read that runs past its timeout", async () => {
    const slow = "SELECT sum(hash(i) % 7) AS s FROM range(50000000000) t(i)";
    await expect(
      collect(duckdbSource.read(ws(1, { query_timeout: 1 }), { query: slow, batchSize: 10 })),
    ).rejects.toThrow(/timeout of 1 s/);
  });
});

// The ClickHouse source against a hostile server: the url is the tenant's, so an answer may be endless,
// trickle, carry odd settings or never come. A plain HTTP server plays it (no ClickHouse needed); the
// source against a real server is clickhouse.test.ts.
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Row } from "../types";
import { clickhouseSource as source } from "./source";
import { cachedReadonlyLevels } from "./http";

async function readAll(options: Partial<Parameters<typeof source.read>[1]> & { query: string }, cfg: Row): Promise<Row[][]> {
  const batches: Row[][] = [];
  for await (const batch of source.read(cfg, { batchSize: 1000, ...options })) batches.push(batch);
  return batches;
}

async function until(condition: () => Promise<boolean>, ms = 10_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await condition()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

describe("a hostile server (the url is the tenant's)", () => {
  type Handler = (sql: string, res: ServerResponse) => void;
  let hostile: Server;
  let handler: Handler = (_sql, res) => res.end();
  const sockets = new Set<Socket>();
  // The tenant's url points at this server instead of ClickHouse; the other settings are a real source's.
  const hostileConfig = (overrides: Row = {}): Row => ({
    url: `http://127.0.0.1:${(hostile.address() as AddressInfo).port}`,
    username: "default",
    password: "",
    database: "ds_src",
    connect_timeout: 5,
    ...overrides,
  });
  /** Writes `piece` again and again until the client goes away. */
  const endless = (res: ServerResponse, piece: Buffer, everyMs = 0) => {
    const tick = () => {
      if (res.destroyed) return;
      const more = res.write(piece);
      if (everyMs > 0) setTimeout(tick, everyMs);
      else if (more) setImmediate(tick);
      else res.once("drain", tick);
    };
    tick();
  };
  let closed = 0;

  beforeAll(async () => {
    hostile = createServer((req, res) => {
      let sql = "";
      req.on("data", (d: Buffer) => (sql += d.toString("utf8")));
      req.on("end", () => handler(sql, res));
      res.on("close", () => closed++);
    });
    hostile.on("connection", (s) => {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
    });
    await new Promise<void>((r) => hostile.listen(0, "127.0.0.1", r));
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((r) => hostile.close(r));
  });

  const level = (sql: string, res: ServerResponse) => {
    if (!sql.includes("name = 'readonly'")) return false;
    res.writeHead(200).end("0\n");
    return true;
  };

  it("an endless 200 answer is cut: check, discover and a query's columns fail with a sentence", async () => {
    const junk = Buffer.alloc(64 * 1024, "y");
    handler = (_sql, res) => endless(res.writeHead(200), junk);
    const first = await source.check(hostileConfig({ password: "endless-1" }));
    expect(first.ok).toBe(false);
    expect(first.details).toMatch(/larger than 1 KB/);
    handler = (sql, res) => level(sql, res) || endless(res.writeHead(200), junk);
    await expect(source.discover(hostileConfig({ password: "endless-2" }))).rejects.toThrow(/larger than 16 MB/);
    await expect(source.query!(hostileConfig({ password: "endless-2" }), "SELECT 1", 5)).rejects.toThrow(/larger than 16 MB/);
    // The client went away: the server stopped writing.
    expect(await until(async () => sockets.size === 0 || closed >= 3)).toBe(true);
  });

  it("an answer that trickles forever ends by the query timeout", async () => {
    handler = (sql, res) => level(sql, res) || endless(res.writeHead(200), Buffer.from("z"), 50);
    const started = Date.now();
    const result = await source.check(hostileConfig({ password: "trickle", query_timeout: 1 }));
    expect(result.ok).toBe(false);
    expect(result.details).toMatch(/did not finish answering within the 1 s query timeout/);
    expect(Date.now() - started).toBeLessThan(8000);
  });

  it("an endless or trickling 500 answer ends too", async () => {
    handler = (_sql, res) => endless(res.writeHead(500), Buffer.alloc(64 * 1024, "e"));
    const big = await source.check(hostileConfig({ password: "endless-500" }));
    expect(big.ok).toBe(false);
    expect(big.details).toMatch(/HTTP 500/);
    handler = (sql, res) => level(sql, res) || endless(res.writeHead(500), Buffer.from("e"), 50);
    const started = Date.now();
    // streamRows's request (no queryText deadline around it): the error body's own bound ends it.
    const read = readAll({ query: "SELECT 1" }, hostileConfig({ password: "trickle-500", query_timeout: 1 }));
    await expect(read).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(8000);
  });

  it("cancel stops a read while the model's columns are asked for", async () => {
    handler = (sql, res) => level(sql, res) || undefined; // never answers the DESCRIBE
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const started = Date.now();
    await expect(readAll({ query: "SELECT 1", signal: controller.signal }, hostileConfig({ password: "hang", query_timeout: 60 }))).rejects.toThrow(/cancelled/);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("a canceled count, once sent, is KILLed on the server (a dropped connection alone may leave it computing)", async () => {
    const seen: string[] = [];
    handler = (sql, res) => {
      seen.push(sql);
      if (level(sql, res)) return;
      if (sql.startsWith("KILL QUERY")) res.writeHead(200).end("");
      // The count itself never answers: still computing.
    };
    const controller = new AbortController();
    const counting = source.countRows!(hostileConfig({ password: "count-cancel", query_timeout: 600 }), {
      query: "SELECT 1",
      batchSize: 1000,
      limit: 1000,
      timeoutMs: 600_000,
      signal: controller.signal,
    });
    expect(await until(async () => seen.some((sql) => sql.includes("count(*)")))).toBe(true);
    controller.abort(new Error("The run was cancelled."));
    await expect(counting).rejects.toThrow(/cancel/i);
    expect(seen.filter((sql) => sql.startsWith("KILL QUERY"))).toHaveLength(1);
  });

  it("the readonly level is only 0, 1 or 2, and the levels kept are bounded", async () => {
    handler = (_sql, res) => res.writeHead(200).end("w".repeat(900));
    const before = cachedReadonlyLevels();
    const result = await source.check(hostileConfig({ password: "odd-level" }));
    expect(result.ok).toBe(false);
    expect(result.details).toMatch(/for the readonly setting, which is 0, 1 or 2/);
    expect(cachedReadonlyLevels()).toBe(before);
    handler = (sql, res) => level(sql, res) || res.writeHead(200).end("18.16.1\t1\n");
    for (let i = 0; i < 1010; i++) expect((await source.check(hostileConfig({ password: `many-${i}` }))).ok).toBe(true);
    expect(cachedReadonlyLevels()).toBe(1000);
  }, 120_000);
});

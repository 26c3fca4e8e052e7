// The Http source against tests/emulators/http-source.ts (offset, page-number, cursor and
// SQL-over-HTTP paging) and against hostile local servers: pages streamed one at a time, 429 with
// Retry-After honoured, incremental filtering, fingerprints equal to the engine's, and the bounds
// (pages, bytes, time, a cursor that loops) holding; the headers' secrets never in an answer.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Row } from "../types";
import { fingerprint, rowJson } from "@/lib/engine/diff";
import { startHttpSourceEmulator, makeOrders, type Order } from "@/tests/emulators/http-source";
import { validateConfiguration } from "../registry";
import { evaluate, parsePath } from "./json-path";
import { httpSource } from "./source";
import { httpSourceDefinition, httpSourceSettings } from "./definition";

const TOKEN = "tok-7c1f0a9e3b5d";
let api: Awaited<ReturnType<typeof startHttpSourceEmulator>>;
const ORDERS = makeOrders(1234);

function config(overrides: Row = {}): Row {
  return {
    increment_type: "Offset",
    http_method: "GET",
    base_url: api.url,
    path: "/v1/orders",
    headers: { Authorization: `Bearer ${TOKEN}` },
    config: { timeout: "10" },
    parse_response: "$.data[0]",
    offset_param: "offset",
    limit_param: "limit",
    page_size: "100",
    ...overrides,
  };
}

async function readAll(cfg: Row, options: Partial<Parameters<typeof httpSource.read>[1]> = {}): Promise<Row[][]> {
  const batches: Row[][] = [];
  for await (const batch of httpSource.read(cfg, { query: "", batchSize: 250, ...options })) batches.push(batch);
  return batches;
}

beforeAll(async () => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  api = await startHttpSourceEmulator({ token: TOKEN, orders: ORDERS });
});
afterAll(async () => api.close());

describe("settings", () => {
  it("accepts the reference's settings unchanged and refuses a path that leaves the server", () => {
    expect(validateConfiguration(httpSourceDefinition, { increment_type: "Page", http_method: "POST", base_url: "https://api.example.com" })).toEqual([]);
    expect(validateConfiguration(httpSourceDefinition, { increment_type: "Cursor", http_method: "GET", base_url: "https://api.example.com" })[0].path).toBe("increment_type");
    return expect(httpSource.check(config({ path: "@evil.example.com/x" }))).resolves.toMatchObject({ ok: false, details: expect.stringContaining("path must stay") });
  });

  it("joins base_url and path with one slash, whichever of them carries it", () => {
    const url = (base_url: string, path: string) => httpSourceSettings({ increment_type: "Offset", http_method: "GET", base_url, path }).url;
    expect(url("https://api.example.com/", "/v1/orders")).toBe("https://api.example.com/v1/orders");
    expect(url("https://api.example.com", "/v1/orders")).toBe("https://api.example.com/v1/orders");
    expect(url("https://api.example.com/v1/", "/")).toBe("https://api.example.com/v1/");
  });

  it("reads the JSONPath subset and refuses the rest with a sentence", () => {
    const doc = { data: [{ id: 1 }, { id: 2 }], meta: { "next-cursor": "c2" } };
    expect(evaluate(doc, parsePath("$.data[*].id", "p"))).toEqual([1, 2]);
    expect(evaluate(doc, parsePath("$['meta']['next-cursor']", "p"))).toEqual(["c2"]);
    expect(evaluate(doc, parsePath("$.data[-1]", "p"))).toEqual([{ id: 2 }]);
    expect(() => parsePath("$..id", "parse_response")).toThrow(/recursive descent/);
    expect(() => parsePath("$.data[?(@.id>1)]", "parse_response")).toThrow(/filters/);
  });
});

describe("reading the emulator", () => {
  it("check and discovery read the first page and type its columns", async () => {
    const checked = await httpSource.check(config());
    expect(checked).toEqual({ ok: true, details: expect.stringContaining("the first page holds 100 records") });
    const catalog = await httpSource.discover(config());
    expect(catalog.streams[0].name).toBe("orders");
    expect(catalog.streams[0].json_schema).toEqual({
      type: "object",
      properties: { id: { type: "integer" }, customer: { type: "string" }, amount: { type: "number" }, status: { type: "string" }, updated_at: { type: "string" } },
    });
  });

  it("offset paging streams every record in batches, one page at a time", async () => {
    const before = api.requests.length;
    const batches = await readAll(config({ params: { status: "paid" } }));
    const paid = ORDERS.filter((o) => o.status === "paid");
    expect(batches.flat()).toEqual(paid);
    expect(batches.slice(0, -1).every((b) => b.length === 250)).toBe(true);
    const pages = api.requests.slice(before).map((r) => new URL(r.url, "http://x").searchParams);
    expect(pages.map((p) => p.get("offset"))).toEqual(Array.from({ length: Math.ceil(paid.length / 100) }, (_, i) => String(i * 100)));
    expect(pages.every((p) => p.get("status") === "paid" && p.get("limit") === "100")).toBe(true);
  });

  it("page-number paging and cursor paging read the same records", async () => {
    const byPage = await readAll(config({ increment_type: "Page", path: "/v2/orders", offset_param: "page", limit_param: "per_page", page_size: "200" }));
    expect(byPage.flat()).toEqual(ORDERS);
    const byCursor = await readAll(config({ path: "/v3/orders", page_size: "300", cursor_path: "$.meta.next_cursor" }));
    expect(byCursor.flat()).toEqual(ORDERS);
  });

  it("an SQL-over-HTTP endpoint gets the model's query with LIMIT/OFFSET, its rows zipped with the column names", async () => {
    const sqlConfig = config({
      http_method: "POST",
      path: "/sql",
      sample_query: '{"query": "SELECT * FROM orders"}',
      parse_response: '["$.columns[*]", "$.rows[*][*]"]',
      page_size: "500",
    });
    const rows = (await readAll(sqlConfig, { query: "SELECT * FROM orders WHERE status = 'refunded';" })).flat();
    expect(rows).toEqual(ORDERS.filter((o) => o.status === "refunded"));
    const sent = api.requests.filter((r) => r.url === "/sql").map((r) => JSON.parse(r.body).query);
    expect(sent.slice(-1)[0]).toMatch(/LIMIT 500 OFFSET 0$/);
    const preview = await httpSource.query!(sqlConfig, "SELECT * FROM orders", 3);
    expect(preview.rows).toEqual(ORDERS.slice(0, 3));
    expect(preview.columns.map((c) => `${c.name}:${c.type}`)).toEqual(["id:integer", "customer:string", "amount:number", "status:string", "updated_at:string"]);
  });

  it("a 429 is retried after its Retry-After and the read completes", async () => {
    api.throttleNext(2);
    const before = api.stats.throttled;
    const started = Date.now();
    const rows = (await readAll(config({ page_size: "500" }))).flat();
    expect(rows).toHaveLength(ORDERS.length);
    expect(api.stats.throttled - before).toBe(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
  });

  it("incremental: the cursor value goes to the API and older rows are dropped here too", async () => {
    const fresh: Order[] = ORDERS.map((o, i) => ({ ...o, updated_at: i % 2 === 0 ? "2026-03-01T00:00:00Z" : "2026-01-01T00:00:00Z" }));
    api.setOrders(fresh);
    try {
      const options = { cursorField: "updated_at", cursorValue: "2026-02-01T00:00:00Z" };
      const viaApi = (await readAll(config({ path: "/v3/orders", cursor_path: "$.meta.next_cursor", page_size: "500", cursor_value_param: "updated_since" }), options)).flat();
      expect(viaApi).toEqual(fresh.filter((o) => o.updated_at >= "2026-02-01"));
      expect(api.requests.slice(-1)[0].url).toContain("updated_since=2026-02-01");
      // No parameter: the API sends everything, the source keeps the rows at or above the cursor.
      const here = (await readAll(config({ page_size: "500" }), options)).flat();
      expect(here).toEqual(viaApi);
    } finally {
      api.setOrders(ORDERS);
    }
  });

  it("fingerprints are the engine's own (md5 of the seed and the row's JSON)", async () => {
    for await (const batch of httpSource.readFingerprinted!(config(), { query: "", batchSize: 100, fingerprint: { seed: "s1", primaryKey: "id" } })) {
      expect(batch.keyValues[0]).toBe(1);
      expect(batch.fingerprints[5]).toBe(fingerprint("s1", rowJson(batch.row(5))));
      expect(batch.row(5)).toEqual(ORDERS[5]);
      break;
    }
  });

  it("a refused token is a sentence without the token", async () => {
    const bad = config({ headers: { Authorization: "Bearer wrong-secret-4242" } });
    const checked = await httpSource.check(bad);
    expect(checked.ok).toBe(false);
    expect(checked.details).toContain("HTTP 401");
    await expect(readAll(bad)).rejects.toThrow(/HTTP 401/);
  });
});

describe("against a hostile endpoint", () => {
  let server: Server;
  let url = "";
  let handler: (path: string, res: import("node:http").ServerResponse) => void = () => undefined;

  beforeAll(async () => {
    server = createServer((req, res) => handler(req.url ?? "", res));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => new Promise<void>((resolve) => server.close(() => resolve())));

  const hostile = (overrides: Row) => ({ increment_type: "Offset", http_method: "GET", base_url: url, path: "/x", headers: { "X-Api-Key": "hostile-secret-99" }, ...overrides });

  it("endless full pages stop at max_pages, with a sentence", async () => {
    let served = 0;
    handler = (_p, res) => {
      served++;
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ data: [{ id: served }, { id: -served }] }));
    };
    await expect(readAll(hostile({ page_size: "2", max_pages: 5 }))).rejects.toThrow(/more than 5 pages \(max_pages\)/);
    expect(served).toBe(5);
  });

  it("ids above 2^53 stay distinct and exact, 1e400 stays a number, and a numeric cursor goes as written", async () => {
    // Finding 8: JSON.parse turned both ids into 12345678901234567000 (one primary key) and 1e400 into null.
    const seen: string[] = [];
    handler = (p, res) => {
      seen.push(p);
      res.setHeader("content-type", "application/json");
      if (p.includes("after=")) res.end('{"data": []}');
      else res.end('{"data": [{"id": 12345678901234567890, "big": 1e400}, {"id": 12345678901234567891, "big": 1.50}], "next": 98765432109876543210}');
    };
    const [rows] = await readAll(hostile({ cursor_path: "$.next", cursor_param: "after" }));
    expect(rows.map((r) => String(r.id))).toEqual(["12345678901234567890", "12345678901234567891"]);
    expect(rows.map((r) => String(r.big))).toEqual(["1e400", "1.50"]);
    expect(new Set(rows.map((r) => JSON.stringify(r.id))).size).toBe(2);
    expect(seen[1]).toContain("after=98765432109876543210");
    handler = (_p, res) => res.end('{"data": [12345678901234567890, 2]}');
    expect((await readAll(hostile({ parse_response: "$.data[*]" })))[0].map((r) => String(r.value))).toEqual(["12345678901234567890", "2"]);
    handler = (p, res) => res.end(p.includes("after=") ? '{"data": []}' : '{"data": [{"id": 12345678901234567890, "big": 1e400}]}');
    const preview = await httpSource.query!(hostile({}), "", 10);
    expect(preview.columns).toEqual([{ name: "id", type: "integer" }, { name: "big", type: "number" }]);
    expect(String(preview.rows[0].id)).toBe("12345678901234567890");
  });

  it("a cursor that comes back again stops the read", async () => {
    handler = (_p, res) => res.end(JSON.stringify({ data: [{ id: 1 }], next: "same" }));
    await expect(readAll(hostile({ cursor_path: "$.next" }))).rejects.toThrow(/same next-page cursor twice/);
  });

  it("an answer larger than max_page_mb is refused, not parsed in part", async () => {
    handler = (_p, res) => {
      res.write('{"data": [');
      const chunk = `${JSON.stringify({ pad: "x".repeat(1000) })},`;
      for (let i = 0; i < 1200; i++) res.write(chunk);
      res.end('{"pad": ""}]}');
    };
    await expect(readAll(hostile({ max_page_mb: 1 }))).rejects.toThrow(/larger than 1024 kB/);
  });

  it("a slow answer times out after config.timeout, and read_timeout bounds the whole read", async () => {
    handler = () => undefined; // never answers
    const started = Date.now();
    await expect(readAll(hostile({ config: { timeout: "1" } }))).rejects.toThrow(/within 1 s/);
    // Retried as a timeout a few times, each bounded: the read ends well within a minute.
    expect(Date.now() - started).toBeLessThan(60_000);
    // read_timeout bounds the retries too.
    const bounded = Date.now();
    await expect(readAll(hostile({ config: { timeout: "30" }, read_timeout: 10 }))).rejects.toThrow(/within/);
    expect(Date.now() - bounded).toBeLessThan(15_000);
  }, 90_000);

  it("a cancel stops the read at once", async () => {
    handler = () => undefined;
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    await expect(readAll(hostile({}), { signal: controller.signal })).rejects.toThrow(/cancelled/);
  });

  it("an error body that echoes the headers never shows their secret", async () => {
    handler = (_p, res) => {
      res.statusCode = 400;
      res.end("you sent X-Api-Key: hostile-secret-99");
    };
    const checked = await httpSource.check(hostile({}));
    expect(checked.ok).toBe(false);
    expect(checked.details).not.toContain("hostile-secret-99");
    await expect(readAll(hostile({}))).rejects.toThrow(/^(?!.*hostile-secret-99)/);
  });

  it("an error body that echoes the bare token of a Bearer or Basic header never shows it", async () => {
    // Finding 4: the scrub knew only whole header values (`Bearer …`), not the token an API echoes alone.
    const basicPair = "reporting-user:basic-pass-5150";
    const cases = [
      { header: "Bearer bare-token-8e21c4", echoed: ["bare-token-8e21c4"] },
      { header: `Basic ${Buffer.from(basicPair).toString("base64")}`, echoed: [Buffer.from(basicPair).toString("base64"), basicPair, "basic-pass-5150"] },
    ];
    for (const { header, echoed } of cases) {
      handler = (_p, res) => {
        res.statusCode = 401;
        res.end(`invalid credentials: ${echoed.join(" and ")}`);
      };
      const cfg = hostile({ headers: { Authorization: header } });
      const checked = await httpSource.check(cfg);
      expect(checked.ok).toBe(false);
      expect(checked.details).toContain("invalid credentials");
      const read = await readAll(cfg).then(() => "", (err: Error) => err.message);
      expect(read).toContain("invalid credentials");
      for (const text of echoed) {
        expect(checked.details).not.toContain(text);
        expect(read).not.toContain(text);
      }
    }
  });

  it("a private address is refused by the outbound policy", async () => {
    const checked = await httpSource.check({ increment_type: "Page", http_method: "GET", base_url: "http://169.254.169.254", path: "/latest" });
    expect(checked.ok).toBe(false);
    expect(checked.details).toMatch(/not allowed/);
  });
});

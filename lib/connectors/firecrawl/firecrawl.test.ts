// The Firecrawl source against tests/emulators/firecrawl.ts (Firecrawl's v1 API reference): a crawl
// started, polled until complete and its results read through `next` pages; rows as the reference
// shapes them; 429 waits taken from Retry-After or from Firecrawl's error text; a crawl past its
// deadline or cancelled is cancelled on Firecrawl; a `next` link elsewhere never gets the key. Then
// through the engine into PostgreSQL: a per-record failure read from PostgreSQL's answer, and an
// unchanged re-run that sends nothing.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Row } from "../types";
import { fingerprint, rowJson } from "@/lib/engine/diff";
import { executeRun } from "@/lib/engine/execute-run";
import { stopEngine, triggerSync } from "@/lib/engine/index";
import { catalogOf, createFixture, pgConnectorConfig, reloadRun, sql, tableStream } from "@/lib/engine/test-support";
import { createScratchDatabase, useTestDatabase } from "@/tests/support/db";
import { startFirecrawlEmulator, type SitePage } from "@/tests/emulators/firecrawl";
import { startHttpServer } from "@/tests/support/connectors";
import { validateConfiguration } from "../registry";
import { firecrawlSourceDefinition } from "./definition";
import { firecrawlSource } from "./source";

useTestDatabase();

const KEY = "fc-0a1b2c3d4e5f60718293a4b5c6d7e8f9";
const SITE = "https://docs.example.com";
const PAGES: SitePage[] = Array.from({ length: 23 }, (_, i) => ({ path: i === 0 ? "/" : `/guides/page-${i}`, title: `Page ${i}`, markdown: `# Page ${i}\n\nText of page ${i}.` }));
let fc: Awaited<ReturnType<typeof startFirecrawlEmulator>>;

function config(overrides: Row = {}): Row {
  return { api_key: KEY, base_url: SITE, config: {}, api_url: fc.url, poll_interval: 0.05, ...overrides };
}

async function readAll(cfg: Row, signal?: AbortSignal): Promise<Row[][]> {
  const batches: Row[][] = [];
  for await (const batch of firecrawlSource.read(cfg, { query: "", batchSize: 10, signal })) batches.push(batch);
  return batches;
}

beforeAll(async () => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  fc = await startFirecrawlEmulator({ apiKey: KEY, site: SITE, pages: PAGES, scrapingPolls: 2, pageSize: 5 });
});
afterAll(async () => {
  await stopEngine();
  await fc.close();
});

describe("the Firecrawl source", () => {
  it("accepts the reference's settings unchanged", () => {
    expect(validateConfiguration(firecrawlSourceDefinition, { api_key: "fc-x", base_url: "https://example.com", config: { limit: "10" } })).toEqual([]);
    expect(validateConfiguration(firecrawlSourceDefinition, { api_key: "fc-x", base_url: "https://example.com", config: { limit: 10 } })[0].path).toBe("config.limit");
  });

  it("check lists the running crawls; discovery is the reference's scrape stream", async () => {
    expect(await firecrawlSource.check(config())).toEqual({ ok: true, details: expect.stringContaining("Connected to Firecrawl") });
    expect((await firecrawlSource.check(config({ api_key: "fc-wrong-key-77" }))).details).toBe("Firecrawl answered HTTP 401: Unauthorized: Invalid token");
    const catalog = await firecrawlSource.discover(config());
    expect(catalog.streams).toEqual([expect.objectContaining({ name: "scrape", supported_sync_modes: ["incremental"], source_defined_primary_key: [["url"]] })]);
    expect(catalog).toMatchObject({ request_rate_limit: 15, request_rate_concurrency: 5 });
  });

  it("a read crawls, polls until complete and follows next pages; rows are the reference's", async () => {
    const batches = await readAll(config({ config: { includePaths: '["/guides/.*"]', limit: "20", scrapeOptions: '{"formats": ["markdown"]}' } }));
    const rows = batches.flat();
    expect(fc.stats.crawls.slice(-1)[0]).toEqual({ url: SITE, includePaths: ["/guides/.*"], limit: 20, scrapeOptions: { formats: ["markdown"] } });
    expect(rows).toHaveLength(20);
    expect(batches.map((b) => b.length)).toEqual([10, 10]);
    expect(rows[0]).toEqual({
      metadata: JSON.stringify({ title: "Page 1", description: "Page 1 page", language: "en", sourceURL: `${SITE}/guides/page-1`, url: `${SITE}/guides/page-1`, statusCode: 200 }),
      markdown: "# Page 1\n\nText of page 1.",
      url: `${SITE}/guides/page-1`,
      markdown_hash: createHash("md5").update("# Page 1\n\nText of page 1.").digest("hex"),
    });
    const statusCalls = fc.requests.filter((r) => r.method === "GET" && /\/v1\/crawl\/[0-9a-f-]+/.test(r.url)).slice(-6).map((r) => r.url.replace(/.*\/v1\/crawl\/[0-9a-f-]+/, ""));
    // Two polls while scraping, the completed answer, then the next pages.
    expect(statusCalls).toEqual(["", "", "", "?skip=5", "?skip=10", "?skip=15"]);
  });

  it("429s wait as Firecrawl says: its Retry-After, or the wait its error text names", async () => {
    const before = fc.stats.throttled;
    fc.throttleNext(1);
    const started = Date.now();
    expect((await readAll(config({ config: { limit: "3" } }))).flat()).toHaveLength(3);
    expect(fc.stats.throttled - before).toBe(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it("a crawl past crawl_timeout, or a cancelled read, is cancelled on Firecrawl", async () => {
    const slow = await startFirecrawlEmulator({ apiKey: KEY, site: SITE, pages: PAGES, scrapingPolls: 1_000_000 });
    try {
      await expect(readAll(config({ api_url: slow.url, crawl_timeout: 10, poll_interval: 2 }))).rejects.toThrow(/did not complete within 10 s/);
      expect(slow.stats.cancelled).toHaveLength(1);
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 300);
      await expect(readAll(config({ api_url: slow.url }), controller.signal)).rejects.toThrow(/cancelled/);
      expect(slow.stats.cancelled).toHaveLength(2);
    } finally {
      await slow.close();
    }
  }, 60_000);

  it("a next link to another server is refused: the API key never follows it", async () => {
    const elsewhere = await startHttpServer();
    const evil = await startHttpServer((req, res) => {
      res.setHeader("content-type", "application/json");
      if (req.method === "POST") res.end(JSON.stringify({ success: true, id: "job-1" }));
      else res.end(JSON.stringify({ status: "completed", data: [{ markdown: "x", metadata: { url: "https://docs.example.com/" } }], next: `${elsewhere.url}/v1/crawl/job-1?skip=1` }));
    });
    try {
      await expect(readAll(config({ api_url: evil.url }))).rejects.toThrow(/not under its API/);
      expect(elsewhere.requests).toHaveLength(0);
    } finally {
      await evil.close();
      await elsewhere.close();
    }
  });

  it("a next link on the same host but outside api_url's path is refused; exact numbers stay exact", async () => {
    // Finding 8: `next` was only checked to be same-origin, and answers were read with JSON.parse.
    const next = { value: "" };
    const api = await startHttpServer((req, res) => {
      res.setHeader("content-type", "application/json");
      if (req.method === "POST") res.end(JSON.stringify({ success: true, id: "job-1" }));
      else if (req.url?.includes("skip=1")) res.end(JSON.stringify({ status: "completed", data: [{ markdown: "y", metadata: { url: `${SITE}/y` } }] }));
      else res.end(`{"status": "completed", "data": [{"markdown": "x", "metadata": {"url": "${SITE}/x", "bytes": 12345678901234567890}}], "next": "${next.value}"}`);
    });
    try {
      const cfg = config({ api_url: `${api.url}/firecrawl` });
      next.value = `${api.url}/admin/v1/crawl/job-1?skip=1`;
      await expect(readAll(cfg)).rejects.toThrow(/not under its API/);
      // Our own calls go under api_url's path; the link outside it is never followed.
      expect(api.requests.map((r) => [r.method, r.url])).toEqual([
        ["POST", "/firecrawl/v1/crawl"],
        ["GET", "/firecrawl/v1/crawl/job-1"],
      ]);
      expect(api.requests.some((r) => r.url.startsWith("/admin"))).toBe(false);
      api.requests.length = 0;
      next.value = `${api.url}/firecrawl/v1/crawl/job-1?skip=1`;
      const rows = (await readAll(cfg)).flat();
      expect(rows.map((r) => r.url)).toEqual([`${SITE}/x`, `${SITE}/y`]);
      expect(rows[0].metadata).toBe(`{"url":"${SITE}/x","bytes":12345678901234567890}`);
    } finally {
      await api.close();
    }
  });

  it("fingerprints are the engine's own; the key is in no error", async () => {
    for await (const batch of firecrawlSource.readFingerprinted!(config({ config: { limit: "4" } }), { query: "", batchSize: 4, fingerprint: { seed: "s", primaryKey: "url" } })) {
      expect(batch.keyValues[0]).toBe(`${SITE}/`);
      expect(batch.fingerprints[2]).toBe(fingerprint("s", rowJson(batch.row(2))));
    }
    const echo = await startHttpServer((req, res) => {
      res.statusCode = 400;
      res.end(JSON.stringify({ success: false, error: `bad request with ${String(req.headers.authorization)}` }));
    });
    try {
      await expect(readAll(config({ api_url: echo.url }))).rejects.toThrow(/^(?!.*fc-0a1b2c3d).*HTTP 400/);
    } finally {
      await echo.close();
    }
  });
});

describe("Firecrawl through the engine into PostgreSQL", () => {
  let destination: { url: string; drop(): Promise<void> };
  beforeAll(async () => {
    destination = await createScratchDatabase("ds_firecrawl_dst");
  });
  afterAll(async () => destination?.drop());

  it("syncs the crawled pages, fails the one PostgreSQL refuses, and an unchanged re-run sends nothing", async () => {
    fc.setPages([...PAGES.slice(0, 8), { path: "/guides/huge", title: "Huge", markdown: "y".repeat(500) }]);
    await sql(destination.url, "CREATE TABLE pages (url text PRIMARY KEY, markdown text CHECK (length(markdown) < 400), metadata text, markdown_hash text)");
    const f = await createFixture({
      sourceUrl: destination.url,
      source: { connectorName: "Firecrawl", config: config() },
      destination: { connectorName: "Postgresql", config: pgConnectorConfig(destination.url), catalog: catalogOf(tableStream("pages", { primary_key: ["url"] })) },
      query: "crawl",
      primaryKey: "url",
      sync: { configuration: ["url", "markdown", "metadata", "markdown_hash"].map((c) => ({ from: c, to: c, mapping_type: "standard" })) },
    });
    const first = await triggerSync(f.workspaceId, f.syncId);
    await executeRun(first.id);
    expect(await reloadRun(first.id)).toMatchObject({ totalRows: 9, successfulRows: 8, failedRows: 1 });
    const stored = await sql<{ url: string; title: string }>(destination.url, "SELECT url, metadata::jsonb->>'title' AS title FROM pages ORDER BY url");
    expect(stored).toHaveLength(8);
    expect(stored[0]).toEqual({ url: `${SITE}/`, title: "Page 0" });

    // The huge page shrinks; the rest is unchanged: only it is sent again.
    fc.setPages([...PAGES.slice(0, 8), { path: "/guides/huge", title: "Huge", markdown: "small now" }]);
    const second = await triggerSync(f.workspaceId, f.syncId);
    await executeRun(second.id);
    expect(await reloadRun(second.id)).toMatchObject({ totalRows: 1, successfulRows: 1, failedRows: 0 });

    const third = await triggerSync(f.workspaceId, f.syncId);
    await executeRun(third.id);
    expect(await reloadRun(third.id)).toMatchObject({ totalRows: 0, failedRows: 0 });
    expect(await sql(destination.url, "SELECT count(*)::int AS n FROM pages")).toEqual([{ n: 9 }]);
  });
});

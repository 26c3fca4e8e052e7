// The Firecrawl source: a read starts a crawl of the site, waits for it to complete (polling its
// status, bounded by crawl_timeout; a cancel or the deadline cancels the crawl too), then yields its
// pages of results one at a time, following `next` links. Each crawled page is a row as the
// reference shapes it: url, markdown, metadata (JSON text) and markdown_hash (md5 of the markdown),
// so an unchanged page has an unchanged row and a re-run sends nothing.
import { createHash } from "node:crypto";
import type { Catalog, CheckResult, FingerprintedBatch, FingerprintOptions, QueryResult, ReadOptions, Row, SourceConnector } from "../types";
import { buildCatalog } from "../shared/catalog";
import { ConnectorError, errorMessage, safeCheck } from "../shared/errors";
import { redact, secretValues } from "../shared/secrets";
import { abortableSleep } from "../shared/sleep";
import { exactJson } from "../shared/values";
import { cancelled, fingerprinted, previewOf, rebatch } from "../shared/api-source";
import { firecrawlSettings, firecrawlSourceDefinition, type FirecrawlSettings } from "./definition";
import { callFirecrawl } from "./api";

/** Pages a preview crawls at most: each costs the account a credit. */
const PREVIEW_PAGES = 5;

interface CrawlStatus {
  status?: string;
  total?: number;
  completed?: number;
  next?: string | null;
  data?: { markdown?: unknown; metadata?: Record<string, unknown> }[];
  error?: string;
}

function scrub(config: Row, err: unknown): ConnectorError {
  return new ConnectorError(redact(errorMessage(err), secretValues(config, firecrawlSourceDefinition)), (err as { code?: string }).code);
}

/** A crawled page as a row (the reference's columns). */
export function pageRow(page: { markdown?: unknown; metadata?: Record<string, unknown> }): Row {
  const markdown = typeof page.markdown === "string" ? page.markdown : "";
  const metadata = page.metadata && typeof page.metadata === "object" ? page.metadata : {};
  const url = metadata.url ?? metadata.sourceURL ?? null;
  return {
    // exactJson: an exact number in the metadata is written as the number, not as the value model's marker.
    metadata: exactJson(metadata),
    markdown,
    url: typeof url === "string" ? url : null,
    markdown_hash: createHash("md5").update(markdown).digest("hex"),
  };
}

async function cancelCrawl(s: FirecrawlSettings, id: string): Promise<void> {
  await callFirecrawl(s, "DELETE", `/v1/crawl/${encodeURIComponent(id)}`, undefined).catch(() => undefined);
}

/** Crawls the site and yields its results page by page; `limit` caps the pages crawled (previews). */
async function* crawl(s: FirecrawlSettings, signal?: AbortSignal, limit?: number): AsyncGenerator<Row[]> {
  const body = limit !== undefined ? { ...s.crawl, limit } : s.crawl;
  const started = await callFirecrawl<{ success?: boolean; id?: unknown; error?: string }>(s, "POST", "/v1/crawl", body, signal);
  if (typeof started.id !== "string" || started.id === "") throw new ConnectorError(`Firecrawl did not start the crawl${started.error ? `: ${started.error}` : "."}`);
  const id = started.id;
  const deadline = Date.now() + s.crawlTimeoutMs;
  let done = false;
  try {
    let status: CrawlStatus;
    for (;;) {
      status = await callFirecrawl<CrawlStatus>(s, "GET", `/v1/crawl/${encodeURIComponent(id)}`, undefined, signal);
      if (status.status === "completed") break;
      if (status.status === "failed" || status.status === "cancelled") throw new ConnectorError(`The Firecrawl crawl ${status.status}${status.error ? `: ${status.error}` : "."}`);
      if (Date.now() + s.pollIntervalMs > deadline) throw new ConnectorError(`The crawl did not complete within ${s.crawlTimeoutMs / 1000} s (crawl_timeout); it was cancelled.`, "timeout");
      await abortableSleep(s.pollIntervalMs, signal, cancelled);
    }
    // Completed: nothing left to cancel, whatever happens to the reading of its results.
    done = true;
    for (let page = 1; ; page++) {
      const rows = (status.data ?? []).filter((d) => d && typeof d === "object").map(pageRow);
      if (rows.length > 0) yield rows;
      if (!status.next) return;
      if (page >= s.maxResultPages) throw new ConnectorError(`The crawl's results have more than ${s.maxResultPages} pages (max_result_pages); the read was stopped.`, "too_many_pages");
      status = await callFirecrawl<CrawlStatus>(s, "GET", status.next, undefined, signal);
    }
  } finally {
    if (!done) await cancelCrawl(s, id);
  }
}

async function check(config: Row, signal?: AbortSignal): Promise<CheckResult> {
  return safeCheck(firecrawlSourceDefinition, config, async () => {
    const s = firecrawlSettings(config);
    const active = await callFirecrawl<{ crawls?: unknown[] }>(s, "GET", "/v1/crawl/active", undefined, signal);
    const running = Array.isArray(active.crawls) ? active.crawls.length : 0;
    return { ok: true, details: `Connected to Firecrawl at ${new URL(s.apiBase).host}: ${running} crawl${running === 1 ? "" : "s"} running.` };
  });
}

async function discover(config: Row): Promise<Catalog> {
  try {
    firecrawlSettings(config);
  } catch (err) {
    throw scrub(config, err);
  }
  const text = { type: "string" };
  return buildCatalog(
    [
      {
        name: "scrape",
        action: "fetch",
        url: "/v1/crawl",
        json_schema: { type: "object", properties: { markdown: text, metadata: text, url: text, markdown_hash: text } },
        batch_support: false,
        batch_size: 0,
        request_method: "POST",
        primary_key: ["url"],
        supported_sync_modes: ["incremental"],
      },
    ],
    // The reference's catalog: 15 requests a minute, 5 at once.
    { request_rate_limit: 15, request_rate_limit_unit: "minute", request_rate_concurrency: 5 },
  );
}

async function query(config: Row, _query: string, limit: number, signal?: AbortSignal): Promise<QueryResult> {
  try {
    const s = firecrawlSettings(config);
    const n = Math.max(0, Math.min(PREVIEW_PAGES, Math.floor(limit)));
    const rows: Row[] = [];
    if (n > 0) for await (const page of crawl(s, signal, n)) rows.push(...page);
    return previewOf(rows.slice(0, n));
  } catch (err) {
    throw scrub(config, err);
  }
}

async function* read(config: Row, options: ReadOptions): AsyncGenerator<Row[]> {
  try {
    const s = firecrawlSettings(config);
    yield* rebatch(crawl(s, options.signal), options.batchSize);
  } catch (err) {
    throw scrub(config, err);
  }
}

function readFingerprinted(config: Row, options: ReadOptions & { fingerprint: FingerprintOptions }): AsyncIterable<FingerprintedBatch> {
  return fingerprinted(read(config, options), options.fingerprint);
}

export const firecrawlSource: SourceConnector = {
  definition: firecrawlSourceDefinition,
  check,
  discover,
  query,
  read,
  readFingerprinted,
};

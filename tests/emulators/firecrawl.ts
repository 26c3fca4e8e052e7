// A Firecrawl v1 API emulator, written from Firecrawl's published API reference
// (docs.firecrawl.dev/api-reference/v1-endpoint: POST /v1/crawl → {success, id, url}; GET
// /v1/crawl/{id} → {status: scraping|completed|failed|cancelled, total, completed, creditsUsed,
// expiresAt, next, data: [{markdown, metadata: {title, description, language, sourceURL, url,
// statusCode}}]}, results handed in pages linked by `next` (…?skip=N); DELETE /v1/crawl/{id};
// GET /v1/crawl/active → {success, crawls: [{id, url}]}; Bearer API keys, 401 {success: false,
// error}; 429 "Rate limit exceeded … retry after Ns"). The site is a fixed list of pages. Tests only.
import type { ServerResponse } from "node:http";
// Not ./common: that one brings the engine's Loader.
import { json, startHttpServer, type ReceivedRequest } from "../support/connectors";

export interface SitePage {
  path: string;
  title: string;
  markdown: string;
}

export interface FirecrawlEmulatorOptions {
  apiKey: string;
  site: string;
  pages: SitePage[];
  /** Status polls a crawl stays `scraping` before it completes. */
  scrapingPolls?: number;
  /** Documents per results page (Firecrawl's pages are up to 10 MB). */
  pageSize?: number;
  /** Requests a minute before 429 (Firecrawl's free plan allows a handful of crawls a minute). */
  perMinute?: number;
  /** 429s carry a Retry-After header too (Firecrawl's text names the wait in any case). */
  retryAfterHeader?: boolean;
}

interface Job {
  id: string;
  url: string;
  docs: { markdown: string; metadata: Record<string, unknown> }[];
  polls: number;
  status: "scraping" | "completed" | "failed" | "cancelled";
}

export async function startFirecrawlEmulator(options: FirecrawlEmulatorOptions) {
  const jobs = new Map<string, Job>();
  let pages = options.pages;
  let forcedThrottles = 0;
  let window = { start: Date.now(), count: 0 };
  let nextId = 1;
  const stats = { crawls: [] as Record<string, unknown>[], throttled: 0, cancelled: [] as string[] };

  function refuse429(res: ServerResponse) {
    stats.throttled++;
    const wait = 1;
    const error = `Rate limit exceeded. Consumed (req/min): ${window.count}, Remaining (req/min): 0. Upgrade your plan at https://firecrawl.dev/pricing for increased rate limits or please retry after ${wait}s, resets at ${new Date(Date.now() + wait * 1000).toUTCString()}`;
    json(res, 429, { success: false, error }, options.retryAfterHeader ? { "retry-after": String(wait) } : {});
  }

  function throttled(): boolean {
    if (forcedThrottles > 0) {
      forcedThrottles--;
      return true;
    }
    if (Date.now() - window.start >= 60_000) window = { start: Date.now(), count: 0 };
    window.count++;
    return window.count > (options.perMinute ?? 1000);
  }

  function startCrawl(req: ReceivedRequest, res: ServerResponse, origin: string) {
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(req.body) as Record<string, unknown>;
    } catch {
      return json(res, 400, { success: false, error: "Bad Request: invalid JSON body" });
    }
    if (typeof body.url !== "string" || !body.url.startsWith(options.site)) return json(res, 400, { success: false, error: "Bad Request: url must be a URL of the site" });
    stats.crawls.push(body);
    const include = Array.isArray(body.includePaths) ? (body.includePaths as string[]).map((p) => new RegExp(p)) : [];
    const limit = typeof body.limit === "number" ? body.limit : 10_000;
    const chosen = pages.filter((p) => include.length === 0 || include.some((re) => re.test(p.path))).slice(0, limit);
    const id = `00000000-0000-4000-8000-${String(nextId++).padStart(12, "0")}`;
    jobs.set(id, {
      id,
      url: body.url,
      polls: 0,
      status: "scraping",
      docs: chosen.map((p) => ({
        markdown: p.markdown,
        metadata: { title: p.title, description: `${p.title} page`, language: "en", sourceURL: `${options.site}${p.path}`, url: `${options.site}${p.path}`, statusCode: 200 },
      })),
    });
    json(res, 200, { success: true, id, url: `${origin}/v1/crawl/${id}` });
  }

  function status(res: ServerResponse, job: Job, skip: number, origin: string) {
    if (job.status === "scraping" && ++job.polls > (options.scrapingPolls ?? 1)) job.status = "completed";
    const size = options.pageSize ?? 10;
    const done = job.status === "completed";
    const data = done ? job.docs.slice(skip, skip + size) : [];
    const next = done && skip + size < job.docs.length ? `${origin}/v1/crawl/${job.id}?skip=${skip + size}` : null;
    json(res, 200, {
      success: true,
      status: job.status,
      total: job.docs.length,
      completed: done ? job.docs.length : 0,
      creditsUsed: done ? job.docs.length : 0,
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
      next,
      data,
    });
  }

  const server = await startHttpServer((req, res) => {
    const url = new URL(req.url, "http://emulator");
    const origin = `http://${req.headers.host}`;
    if (req.headers.authorization !== `Bearer ${options.apiKey}`) return json(res, 401, { success: false, error: "Unauthorized: Invalid token" });
    if (throttled()) return refuse429(res);
    if (req.method === "POST" && url.pathname === "/v1/crawl") return startCrawl(req, res, origin);
    if (req.method === "GET" && url.pathname === "/v1/crawl/active") {
      return json(res, 200, { success: true, crawls: [...jobs.values()].filter((j) => j.status === "scraping").map((j) => ({ id: j.id, url: j.url })) });
    }
    const m = /^\/v1\/crawl\/([0-9a-f-]+)$/.exec(url.pathname);
    const job = m ? jobs.get(m[1]) : undefined;
    if (!job) return json(res, 404, { success: false, error: "Job not found" });
    if (req.method === "DELETE") {
      job.status = "cancelled";
      stats.cancelled.push(job.id);
      return json(res, 200, { status: "cancelled" });
    }
    if (req.method === "GET") return status(res, job, Number(url.searchParams.get("skip") ?? 0), origin);
    json(res, 405, { success: false, error: "Method not allowed" });
  });

  return {
    url: server.url,
    stats,
    requests: server.requests,
    /** Replaces the site's pages (a later crawl sees these). */
    setPages(next: SitePage[]): void {
      pages = next;
    },
    /** The next `n` requests are answered 429. */
    throttleNext(n: number): void {
      forcedThrottles = n;
    },
    close: () => server.close(),
  };
}

export type FirecrawlEmulator = Awaited<ReturnType<typeof startFirecrawlEmulator>>;

// The Firecrawl source's definition and typed configuration. The specification accepts the
// reference's settings unchanged (api_key; base_url, the site to crawl; config, the crawl's options
// as text values, JSON where they are JSON); ours are optional: the Firecrawl API root (for a
// self-hosted Firecrawl or a test emulator) and the bounds of a crawl.
import type { ConnectorDefinition, JsonSchema, Row } from "../types";
import { ConnectorError } from "../shared/errors";
import { JSON_SCHEMA_DRAFT } from "../shared/spec";

export const FIRECRAWL_API = "https://api.firecrawl.dev";

export const firecrawlSpecification: JsonSchema = {
  $schema: JSON_SCHEMA_DRAFT,
  title: "Firecrawl",
  type: "object",
  required: ["api_key", "base_url"],
  properties: {
    api_key: { type: "string", title: "API key", description: "The Firecrawl API key (fc-…).", secret: true, multiwoven_secret: true, maxLength: 4096, order: 0 },
    base_url: { type: "string", title: "Site URL", description: "The page the crawl starts from, e.g. https://docs.example.com.", maxLength: 2048, order: 1 },
    config: {
      type: "object",
      title: "Crawl options",
      description: 'Firecrawl crawl options, each a text value read as JSON where it is JSON: limit "50", includePaths ["/blog/.*"], maxDepth "2", scrapeOptions {"formats": ["markdown"]}.',
      additionalProperties: { type: "string", maxLength: 65536 },
      order: 2,
    },
    api_url: {
      type: "string",
      title: "Firecrawl API URL",
      description: "The Firecrawl API root; change it only for a self-hosted Firecrawl or a test emulator.",
      pattern: "^https?://",
      default: FIRECRAWL_API,
      maxLength: 2048,
      order: 3,
    },
    crawl_timeout: { type: "integer", title: "Longest crawl (seconds)", description: "A crawl still running after this long is cancelled and the read fails.", minimum: 10, maximum: 86400, default: 1800, order: 4 },
    poll_interval: { type: "number", title: "Status poll interval (seconds)", description: "Pause between two looks at a running crawl.", minimum: 0.05, maximum: 60, default: 5, order: 5 },
    max_result_pages: { type: "integer", title: "Most result pages", description: "Pages of crawl results followed (next links); a crawl that has more fails.", minimum: 1, maximum: 100000, default: 1000, order: 6 },
  },
};

export const firecrawlSourceDefinition: ConnectorDefinition = {
  name: "Firecrawl",
  title: "Firecrawl",
  connectorType: "source",
  category: "Data Warehouse",
  subCategory: "Web Scraper",
  icon: "/icons/firecrawl.svg",
  documentationUrl: "https://docs.firecrawl.dev/api-reference/endpoint/crawl-post",
  connectionSpecification: firecrawlSpecification,
  // The API key goes to the Firecrawl API only (the site is fetched by Firecrawl, never by us).
  secretTargetFields: ["api_url"],
  streamType: "dynamic",
  supportsQuery: true,
};

export interface FirecrawlSettings {
  apiBase: string;
  apiKey: string;
  /** The crawl request's body: config's options (JSON-read) with url defaulting to base_url. */
  crawl: Row;
  crawlTimeoutMs: number;
  pollIntervalMs: number;
  maxResultPages: number;
}

const text = (v: unknown) => (typeof v === "string" && v.trim() !== "" ? v.trim() : undefined);

/** An option's text value as the JSON it holds, or the text itself. */
function optionValue(value: unknown): unknown {
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

const clamp = (value: unknown, fallback: number, min: number, max: number) => {
  const n = Number(value ?? fallback);
  return Number.isFinite(n) ? Math.min(max, Math.max(min, n)) : fallback;
};

export function firecrawlSettings(config: Row): FirecrawlSettings {
  const apiKey = text(config.api_key);
  if (!apiKey) throw new ConnectorError("api_key is required.");
  const site = text(config.base_url);
  if (!site) throw new ConnectorError("base_url (the site to crawl) is required.");
  const apiBase = (text(config.api_url) ?? FIRECRAWL_API).replace(/\/+$/, "");
  if (!/^https?:\/\//i.test(apiBase)) throw new ConnectorError("api_url must be an http(s) URL.");
  const options = config.config && typeof config.config === "object" && !Array.isArray(config.config) ? (config.config as Row) : {};
  const crawl: Row = Object.fromEntries(Object.entries(options).map(([k, v]) => [k, optionValue(v)]));
  crawl.url ??= site;
  if (typeof crawl.url !== "string" || !/^https?:\/\//i.test(crawl.url)) throw new ConnectorError("The site to crawl (base_url, or config.url) must be an http(s) URL.");
  return {
    apiBase,
    apiKey,
    crawl,
    crawlTimeoutMs: clamp(config.crawl_timeout, 1800, 10, 86_400) * 1000,
    pollIntervalMs: Math.round(clamp(config.poll_interval, 5, 0.05, 60) * 1000),
    maxResultPages: Math.floor(clamp(config.max_result_pages, 1000, 1, 100_000)),
  };
}

// The Http source's requests, one page at a time: the URL with its parameters and paging (page
// number, offset or the last answer's cursor), the body with the query, records picked out of each
// answer. Bounded against a hostile endpoint: pages per read, bytes per answer, time per read, and an
// endpoint that keeps sending the same cursor or empty pages is stopped.
import type { Row } from "../types";
import { ConnectorError } from "../shared/errors";
import { describeExchange, isSuccess } from "@/lib/net/http";
import { jsonOf, sendWithRetries } from "../shared/api-source";
import { JsonNumber } from "../shared/values";
import { evaluate, recordsPath } from "./json-path";
import type { HttpSourceSettings, Records } from "./definition";

/** Empty pages in a row that still link on, before the read is stopped. */
const MAX_EMPTY_PAGES = 3;
const ATTEMPTS = 5;

export interface PageOptions {
  /** The model's query, sent under sample_query's field (absent: sample_query's own value). */
  query?: string;
  /** Incremental reads: the last cursor value, sent as cursor_value_param when set. */
  cursorValue?: string | null;
  /** Pages read at most (check, discovery and previews read one). */
  pages?: number;
  signal?: AbortSignal;
}

/** The records of one answer, as the record path (or the names and values paths) picks them. */
export function recordsOf(answer: unknown, records: Records): Row[] {
  const asRow = (v: unknown): Row => (v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof JsonNumber) ? (v as Row) : { value: v });
  if (records.kind === "path") {
    const found = evaluate(answer, recordsPath(records.steps));
    const list = found.length === 1 && Array.isArray(found[0]) ? (found[0] as unknown[]) : found;
    return list.map(asRow);
  }
  const names = evaluate(answer, records.names).map(String);
  const values = evaluate(answer, records.values);
  if (names.length === 0) return [];
  const rows: Row[] = [];
  for (let i = 0; i < values.length; i += names.length) rows.push(Object.fromEntries(names.map((n, j) => [n, values[i + j] ?? null])));
  return rows;
}

/** The query text of a page: an SQL-over-HTTP endpoint pages in the query itself (LIMIT/OFFSET). */
function queryText(query: string, s: HttpSourceSettings, offset: number): string {
  if (s.paging.kind !== "page" && s.paging.kind !== "offset") return query;
  const base = query.trim().replace(/;+\s*$/, "");
  if (/\blimit\s+\d+/i.test(base)) throw new ConnectorError("The query already holds a LIMIT: paging adds its own (page_size).");
  return `${base} LIMIT ${s.paging.pageSize} OFFSET ${offset}`;
}

/** Yields each page's records in order, one page in memory at a time. */
export async function* pages(s: HttpSourceSettings, options: PageOptions): AsyncGenerator<Row[]> {
  const deadline = Date.now() + s.readTimeoutMs;
  const paging = s.paging;
  const maxPages = Math.min(options.pages ?? s.maxPages, s.maxPages);
  let position = paging.kind === "page" || paging.kind === "offset" ? paging.start : 0;
  // The record offset an SQL query's OFFSET carries (page numbers count from page_start).
  let recordOffset = paging.kind === "page" ? Math.max(0, paging.start - 1) * paging.pageSize : position;
  let cursor: string | undefined;
  let emptyPages = 0;
  for (let page = 0; ; page++) {
    if (page >= maxPages) {
      if (options.pages !== undefined) return;
      throw new ConnectorError(`The endpoint has more than ${s.maxPages} pages (max_pages); the read was stopped.`, "too_many_pages");
    }
    const left = deadline - Date.now();
    if (left <= 0) throw new ConnectorError(`The read took longer than ${s.readTimeoutMs / 1000} s (read_timeout); it was stopped.`, "timeout");
    const url = new URL(s.url);
    for (const [k, v] of Object.entries(s.params)) url.searchParams.set(k, v);
    const body: Row = { ...s.body };
    if (s.sampleQuery) body[s.sampleQuery.key] = queryText(options.query ?? s.sampleQuery.value, s, recordOffset);
    else if (paging.kind === "page" || paging.kind === "offset") {
      url.searchParams.set(paging.offsetParam, String(position));
      url.searchParams.set(paging.limitParam, String(paging.pageSize));
    }
    if (paging.kind === "cursor") {
      if (paging.pageSize !== undefined) url.searchParams.set(paging.limitParam, String(paging.pageSize));
      if (cursor !== undefined) url.searchParams.set(paging.param, cursor);
    }
    if (s.cursorValueParam && options.cursorValue !== undefined && options.cursorValue !== null) url.searchParams.set(s.cursorValueParam, options.cursorValue);
    const post = s.method === "POST";
    const exchange = await sendWithRetries(
      {
        url: url.toString(),
        method: s.method,
        headers: { accept: "application/json", ...(post ? { "content-type": "application/json" } : {}), ...s.headers },
        body: post ? JSON.stringify(body) : undefined,
        timeoutMs: Math.max(1000, Math.min(s.requestTimeoutMs, left)),
        signal: options.signal,
        secretHeaders: Object.keys(s.headers),
        maxBodyBytes: s.maxPageBytes,
      },
      { attempts: ATTEMPTS, baseDelayMs: 1000, deadline },
    );
    if (!isSuccess(exchange)) throw new ConnectorError(describeExchange(exchange), exchange.failure === "blocked" ? "outbound_blocked" : `http_${exchange.status}`);
    const answer = jsonOf(exchange, `The endpoint ${url.host}`);
    const rows = recordsOf(answer, s.records);
    if (rows.length > 0) yield rows;
    if (paging.kind === "none") return;
    if (paging.kind === "cursor") {
      const [next] = evaluate(answer, paging.steps);
      if (next === undefined || next === null || next === "" || next === false) return;
      // A JsonNumber cursor goes as its exact text (its JSON would be the value model's marker).
      const text = typeof next === "string" || next instanceof JsonNumber ? String(next) : JSON.stringify(next);
      if (text === cursor) throw new ConnectorError("The endpoint sent the same next-page cursor twice; the read was stopped.", "cursor_loop");
      emptyPages = rows.length === 0 ? emptyPages + 1 : 0;
      if (emptyPages > MAX_EMPTY_PAGES) throw new ConnectorError("The endpoint kept answering empty pages that link to more; the read was stopped.", "empty_pages");
      cursor = text;
      continue;
    }
    // Page and offset paging end at the first page shorter than the page size.
    if (rows.length < paging.pageSize) return;
    position += paging.kind === "page" ? 1 : rows.length;
    recordOffset += rows.length;
  }
}

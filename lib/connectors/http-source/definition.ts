// The Http source's definition and its typed configuration. The specification accepts the
// reference's settings unchanged (increment_type, http_method, base_url, path, headers, config.timeout,
// request_format, sample_query, parse_response, params, offset_param, limit_param, page_size,
// page_start); ours are optional: cursor paging (cursor_path, cursor_param), an incremental filter
// parameter (cursor_value_param) and the hard bounds of a read (max_pages, max_page_mb, read_timeout).
import type { ConnectorDefinition, JsonSchema, Row } from "../types";
import { ConnectorError } from "../shared/errors";
import { JSON_SCHEMA_DRAFT } from "../shared/spec";
import { parsePath, type PathStep } from "./json-path";

const stringMap = { type: "object", additionalProperties: { type: "string", maxLength: 8192 } };

export const httpSourceSpecification: JsonSchema = {
  $schema: JSON_SCHEMA_DRAFT,
  title: "HTTP",
  type: "object",
  required: ["increment_type", "base_url", "http_method"],
  properties: {
    increment_type: {
      type: "string",
      title: "Increment type",
      description: "How pages are numbered when page_size is set: Page sends page numbers, Offset the count of records already read.",
      enum: ["Page", "Offset"],
      default: "Page",
      order: 0,
    },
    http_method: { type: "string", title: "HTTP method", description: "Method of every request.", enum: ["POST", "GET"], order: 1 },
    base_url: { type: "string", title: "URL", description: "The http(s) root of the API, e.g. https://api.example.com.", pattern: "^https?://", maxLength: 2048, order: 2 },
    path: { type: "string", title: "Path", description: "Appended to the URL, e.g. /v1/orders.", default: "/", maxLength: 2048, order: 3 },
    headers: {
      type: "object",
      // The reference console masks the field that carries multiwoven_secret: here each header's value.
      additionalProperties: { type: "string", maxLength: 8192, multiwoven_secret: true },
      title: "HTTP headers",
      description: "Request headers, e.g. Authorization. Stored encrypted and masked when shown.",
      secret: true,
      order: 4,
    },
    config: {
      type: "object",
      title: "Request options",
      description: "Per-request options.",
      properties: {
        timeout: { type: "string", title: "HTTP timeout (seconds)", description: "Longest wait for one answer.", pattern: "^[0-9]+(\\.[0-9]+)?$", default: "30" },
      },
      order: 5,
    },
    request_format: {
      type: "string",
      title: "Request body",
      description: "A JSON object sent as the body of POST requests.",
      maxLength: 65536,
      order: 6,
    },
    sample_query: {
      type: "string",
      title: "Sample query",
      description: 'For endpoints that take a query in the body: a JSON object with one field, e.g. {"query": "SELECT * FROM t"}. The model\'s query is sent under that field; check and discovery send this one.',
      maxLength: 65536,
      order: 7,
    },
    parse_response: {
      type: "string",
      title: "Record path",
      description: 'A JSONPath to one record of an answer, e.g. $.data[0]: its siblings are the records. Or a JSON list of two paths, column names then values, e.g. ["$.columns[*]", "$.rows[*][*]"].',
      default: "$.data[0]",
      maxLength: 1000,
      order: 8,
    },
    params: { ...stringMap, title: "Query parameters", description: "Sent in the URL of every request.", order: 9 },
    offset_param: { type: "string", title: "Offset parameter", description: "Query parameter that carries the page number or offset.", default: "offset", maxLength: 200, order: 10 },
    limit_param: { type: "string", title: "Limit parameter", description: "Query parameter that carries the page size.", default: "limit", maxLength: 200, order: 11 },
    page_size: { type: "string", title: "Page size", description: "Records asked per page. Empty: one request, no paging.", pattern: "^[0-9]{1,6}$", order: 12 },
    page_start: { type: "string", title: "Page start", description: "The first page's number (default 1); with Offset, the first offset is (page_start − 1) × page_size.", pattern: "^[0-9]{1,9}$", order: 13 },
    cursor_path: {
      type: "string",
      title: "Next-page cursor path",
      description: "Cursor paging instead: a JSONPath to the next page's cursor in each answer, e.g. $.meta.next_cursor. Paging stops when it is empty.",
      maxLength: 1000,
      order: 14,
    },
    cursor_param: { type: "string", title: "Cursor parameter", description: "Query parameter that carries the cursor.", default: "cursor", maxLength: 200, order: 15 },
    cursor_value_param: {
      type: "string",
      title: "Incremental parameter",
      description: "Incremental syncs: query parameter that carries the last cursor value, so that the API filters (e.g. updated_since). Rows below it are dropped here anyway.",
      maxLength: 200,
      order: 16,
    },
    max_pages: { type: "integer", title: "Most pages per read", description: "A read that would need more fails instead of running on.", minimum: 1, maximum: 100000, default: 1000, order: 17 },
    max_page_mb: { type: "integer", title: "Largest answer (MB)", description: "An answer larger than this fails the read.", minimum: 1, maximum: 50, default: 10, order: 18 },
    read_timeout: { type: "integer", title: "Longest read (seconds)", description: "A read still paging after this long fails.", minimum: 10, maximum: 86400, default: 3600, order: 19 },
  },
};

export const httpSourceDefinition: ConnectorDefinition = {
  name: "Http",
  title: "HTTP",
  connectorType: "source",
  category: "Data Warehouse",
  subCategory: "Relational Database",
  icon: "/icons/http-source.svg",
  documentationUrl: "https://www.rfc-editor.org/rfc/rfc9110",
  connectionSpecification: httpSourceSpecification,
  // The headers go wherever the URL and path point.
  secretTargetFields: ["base_url", "path"],
  streamType: "dynamic",
  supportsQuery: true,
};

export type Records = { kind: "path"; steps: PathStep[] } | { kind: "columns"; names: PathStep[]; values: PathStep[] };

export type Paging =
  | { kind: "none" }
  | { kind: "page" | "offset"; offsetParam: string; limitParam: string; pageSize: number; start: number }
  | { kind: "cursor"; steps: PathStep[]; param: string; limitParam: string; pageSize?: number };

/** The configuration, typed: what the adapter reads, never the raw object. */
export interface HttpSourceSettings {
  url: string;
  method: "GET" | "POST";
  headers: Record<string, string>;
  params: Record<string, string>;
  /** request_format, parsed. */
  body: Row;
  /** sample_query's field and value: where the model's query goes in the body. */
  sampleQuery?: { key: string; value: string };
  records: Records;
  paging: Paging;
  cursorValueParam?: string;
  requestTimeoutMs: number;
  maxPages: number;
  maxPageBytes: number;
  readTimeoutMs: number;
}

const text = (v: unknown) => (typeof v === "string" && v.trim() !== "" ? v.trim() : undefined);

function jsonObject(value: string, field: string): Row {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new ConnectorError(`${field} is not valid JSON.`);
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new ConnectorError(`${field} must be a JSON object.`);
  return parsed as Row;
}

function strings(value: unknown, field: string): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (typeof value !== "object" || Array.isArray(value)) throw new ConnectorError(`${field} must be an object of names and text values.`);
  return Object.fromEntries(Object.entries(value as Row).map(([k, v]) => [k, String(v)]));
}

function recordsOf(setting: string): Records {
  if (setting.startsWith("[")) {
    let paths: unknown;
    try {
      paths = JSON.parse(setting);
    } catch {
      throw new ConnectorError("parse_response starts with [ but is not a JSON list of two paths.");
    }
    if (!Array.isArray(paths) || paths.length !== 2 || !paths.every((p) => typeof p === "string")) {
      throw new ConnectorError("parse_response as a list holds two JSONPaths: the column names, then the values.");
    }
    return { kind: "columns", names: parsePath(paths[0], "parse_response"), values: parsePath(paths[1], "parse_response") };
  }
  return { kind: "path", steps: parsePath(setting, "parse_response") };
}

function pagingOf(config: Row): Paging {
  const limitParam = text(config.limit_param) ?? "limit";
  const pageSize = text(config.page_size) !== undefined ? Number(config.page_size) : undefined;
  if (pageSize !== undefined && (!Number.isInteger(pageSize) || pageSize < 1)) throw new ConnectorError("page_size must be a whole number of at least 1.");
  const cursorPath = text(config.cursor_path);
  if (cursorPath) return { kind: "cursor", steps: parsePath(cursorPath, "cursor_path"), param: text(config.cursor_param) ?? "cursor", limitParam, pageSize };
  if (pageSize === undefined) return { kind: "none" };
  const startText = text(config.page_start);
  const start = startText !== undefined ? Number(startText) : 1;
  const kind = config.increment_type === "Offset" ? "offset" : "page";
  return { kind, offsetParam: text(config.offset_param) ?? "offset", limitParam, pageSize, start: kind === "offset" ? Math.max(0, start - 1) * pageSize : start };
}

const bounded = (value: unknown, fallback: number, min: number, max: number) => {
  const n = Number(value ?? fallback);
  return Number.isFinite(n) ? Math.min(max, Math.max(min, n)) : fallback;
};

export function httpSourceSettings(config: Row): HttpSourceSettings {
  const base = text(config.base_url);
  if (!base || !/^https?:\/\//i.test(base)) throw new ConnectorError("base_url must be an http(s) URL.");
  const path = text(config.path) ?? "";
  // One slash where base_url ends with one and path starts with one (the reference pastes both: `//`).
  const joined = base.endsWith("/") && path.startsWith("/") ? `${base}${path.slice(1)}` : `${base}${path}`;
  let url: URL;
  try {
    url = new URL(joined);
  } catch {
    throw new ConnectorError("base_url and path do not make a valid URL.");
  }
  // A path must not move the request to another server (user info, another host).
  if (url.origin !== new URL(base).origin || url.username || url.password) throw new ConnectorError("path must stay on base_url's server: start it with /.");
  const method = config.http_method === "GET" ? "GET" : config.http_method === "POST" ? "POST" : undefined;
  if (!method) throw new ConnectorError("http_method must be GET or POST.");
  const sample = text(config.sample_query);
  let sampleQuery: HttpSourceSettings["sampleQuery"];
  if (sample) {
    const [entry] = Object.entries(jsonObject(sample, "sample_query"));
    if (!entry) throw new ConnectorError("sample_query must hold one field: the name the query is sent under.");
    sampleQuery = { key: entry[0], value: typeof entry[1] === "string" ? entry[1] : JSON.stringify(entry[1]) };
  }
  const requestFormat = text(config.request_format);
  const timeout = Number((config.config as Row | undefined)?.timeout ?? 30);
  return {
    url: url.toString(),
    method,
    headers: strings(config.headers, "headers"),
    params: strings(config.params, "params"),
    body: requestFormat ? jsonObject(requestFormat, "request_format") : {},
    sampleQuery,
    records: recordsOf(text(config.parse_response) ?? "$.data[0]"),
    paging: pagingOf(config),
    cursorValueParam: text(config.cursor_value_param),
    requestTimeoutMs: Math.round(bounded(timeout, 30, 1, 600) * 1000),
    maxPages: Math.floor(bounded(config.max_pages, 1000, 1, 100_000)),
    maxPageBytes: Math.floor(bounded(config.max_page_mb, 10, 1, 50)) * 1024 * 1024,
    readTimeoutMs: Math.floor(bounded(config.read_timeout, 3600, 10, 86_400)) * 1000,
  };
}

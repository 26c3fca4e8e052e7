// Qdrant source: the collection's points as rows (id, payload, vector, score). The model query is a
// JSON object (vectors/source-api.ts): with a vector, the nearest points (POST …/points/search, as
// the reference's vector search does); without one, every point, read page by page with
// POST …/points/scroll (next_page_offset), never more than a page in memory. Filters are Qdrant's
// own `filter` object or the reference's field/operator/value list. Rows are fingerprinted, so an
// unchanged collection sends nothing on a re-run. Settings are the reference's (host, api_key,
// collection_name). Reference: api.qdrant.tech (Points: scroll, search; Collections: get).
import type { Catalog, CheckResult, ConnectorDefinition, FingerprintedBatch, FingerprintOptions, QueryResult, ReadOptions, Row, SourceConnector } from "../types";
import { buildCatalog } from "../shared/catalog";
import { secondsToMs } from "../shared/config";
import { ConnectorError, errorMessage, safeCheck } from "../shared/errors";
import { redact, secretValues } from "../shared/secrets";
import { JSON_SCHEMA_DRAFT } from "../shared/spec";
import { secretField } from "../rest-kit/fields";
import { callJson, fingerprinted, parseVectorQuery, previewColumns, type SimpleFilter, type VectorQuery } from "../vectors/source-api";
import { describeParams, qdrantError, qdrantUrl, vectorParams } from "./api";

/** Largest search Qdrant is asked for, and the page of a listing. */
const MAX_LIMIT = 10_000;
const COLUMNS = ["id", "payload", "vector", "score"];
/** Attempts of a request a person waits for (a sync's read takes callJson's default). */
const INTERACTIVE_ATTEMPTS = 2;

export const qdrantSourceDefinition: ConnectorDefinition = {
  name: "Qdrant",
  title: "Qdrant",
  connectorType: "source",
  category: "Database",
  subCategory: "Vector Database",
  icon: "/icons/qdrant.svg",
  documentationUrl: "https://api.qdrant.tech/api-reference",
  streamType: "user_defined",
  supportsQuery: false,
  secretTargetFields: ["host"],
  connectionSpecification: {
    $schema: JSON_SCHEMA_DRAFT,
    title: "Qdrant",
    type: "object",
    required: ["host", "api_key", "collection_name"],
    properties: {
      host: { type: "string", title: "Host", description: "The Qdrant server's URL with its port, e.g. https://xyz.eu-central.aws.cloud.qdrant.io:6333 (https:// when no scheme is given).", order: 0 },
      api_key: secretField("API Key", "A Qdrant API key that can read the collection.", 1),
      collection_name: { type: "string", title: "Collection Name", description: "The collection whose points models read.", minLength: 1, order: 2 },
      timeout: { type: "integer", title: "Timeout (seconds)", description: "How long to wait for each response.", minimum: 1, maximum: 300, default: 30, order: 3 },
    },
  },
};

interface Settings {
  url: string;
  apiKey: string;
  collection: string;
  timeoutMs: number;
  /** Fewer attempts where a person waits (check, discover, preview). */
  attempts?: number;
}

function settingsOf(config: Row): Settings {
  const collection = config.collection_name;
  if (typeof collection !== "string" || collection === "") throw new ConnectorError("collection_name is required.");
  if (typeof config.api_key !== "string") throw new ConnectorError("api_key is required.");
  return { url: qdrantUrl(config.host, "Host"), apiKey: config.api_key, collection, timeoutMs: secondsToMs(config, "timeout", 30) };
}

function call(s: Settings, method: "GET" | "POST", path: string, body?: unknown, signal?: AbortSignal) {
  return callJson({
    url: `${s.url}${path}`,
    method,
    headers: { "api-key": s.apiKey },
    secretHeaders: ["api-key"],
    body,
    timeoutMs: s.timeoutMs,
    signal,
    errorText: qdrantError,
    vendor: "Qdrant",
    attempts: s.attempts,
  });
}

const collectionPath = (s: Settings) => `/collections/${encodeURIComponent(s.collection)}`;

/** The reference's filter list as a Qdrant filter (must / must_not of match and range conditions). */
export function qdrantFilter(query: VectorQuery): Row | undefined {
  const must: Row[] = [];
  const mustNot: Row[] = [];
  const condition = (f: SimpleFilter): Row => {
    switch (f.operator) {
      case "eq":
      case "neq":
        return { key: f.field, match: { value: f.value } };
      case "in":
        return { key: f.field, match: { any: Array.isArray(f.value) ? f.value : [f.value] } };
      default:
        return { key: f.field, range: { [f.operator]: f.value } };
    }
  };
  for (const f of query.filters) (f.operator === "neq" ? mustNot : must).push(condition(f));
  const own = query.filter ?? {};
  const merged: Row = { ...own };
  if (must.length > 0) merged.must = [...((own.must as Row[] | undefined) ?? []), ...must];
  if (mustNot.length > 0) merged.must_not = [...((own.must_not as Row[] | undefined) ?? []), ...mustNot];
  return Object.keys(merged).length > 0 ? merged : undefined;
}

interface Point {
  id?: unknown;
  payload?: unknown;
  vector?: unknown;
  score?: unknown;
}

/** A point as a row: the id as text (integers and UUIDs alike), payload and vector as JSON. */
const rowOf = (p: Point): Row => ({ id: String(p.id), payload: p.payload ?? null, vector: p.vector ?? null, score: typeof p.score === "number" ? p.score : null });

/** The query's rows, in pages of at most `pageSize`. */
async function* points(s: Settings, query: VectorQuery, pageSize: number, signal?: AbortSignal): AsyncGenerator<Row[]> {
  const filter = qdrantFilter(query);
  if (query.vector) {
    const body = { vector: query.vector, limit: query.limit ?? 10, with_payload: true, with_vector: true, ...(filter ? { filter } : {}) };
    const found = ((await call(s, "POST", `${collectionPath(s)}/points/search`, body, signal)) as { result?: Point[] }).result ?? [];
    for (let i = 0; i < found.length; i += pageSize) yield found.slice(i, i + pageSize).map(rowOf);
    return;
  }
  let offset: unknown = undefined;
  let left = query.limit ?? Number.POSITIVE_INFINITY;
  do {
    const limit = Math.min(pageSize, left);
    const body = { limit, with_payload: true, with_vector: true, ...(offset !== undefined ? { offset } : {}), ...(filter ? { filter } : {}) };
    const page = ((await call(s, "POST", `${collectionPath(s)}/points/scroll`, body, signal)) as { result?: { points?: Point[]; next_page_offset?: unknown } }).result;
    const rows = (page?.points ?? []).map(rowOf);
    left -= rows.length;
    if (rows.length > 0) yield rows;
    offset = page?.next_page_offset ?? undefined;
  } while (offset !== undefined && offset !== null && left > 0);
}

function scrub(config: Row, err: unknown): ConnectorError {
  return new ConnectorError(redact(errorMessage(err), secretValues(config, qdrantSourceDefinition)), (err as { code?: string }).code);
}

async function* read(config: Row, options: ReadOptions): AsyncGenerator<Row[]> {
  try {
    const s = settingsOf(config);
    yield* points(s, parseVectorQuery(options.query, MAX_LIMIT), Math.max(1, Math.min(MAX_LIMIT, Math.floor(options.batchSize))), options.signal);
  } catch (err) {
    throw scrub(config, err);
  }
}

async function* readFingerprinted(config: Row, options: ReadOptions & { fingerprint: FingerprintOptions }): AsyncGenerator<FingerprintedBatch> {
  for await (const rows of read(config, options)) yield fingerprinted(rows, options.fingerprint);
}

async function query(config: Row, modelQuery: string, limit: number, signal?: AbortSignal): Promise<QueryResult> {
  try {
    const s = { ...settingsOf(config), attempts: INTERACTIVE_ATTEMPTS };
    const q = parseVectorQuery(modelQuery, MAX_LIMIT);
    const wanted = Math.max(1, Math.min(limit, q.limit ?? limit));
    const rows: Row[] = [];
    for await (const page of points(s, { ...q, limit: wanted }, wanted, signal)) rows.push(...page);
    return { columns: previewColumns(rows, COLUMNS), rows: rows.slice(0, wanted) };
  } catch (err) {
    throw scrub(config, err);
  }
}

async function describe(s: Settings, signal?: AbortSignal) {
  const result = ((await call(s, "GET", collectionPath(s), undefined, signal)) as { result?: { points_count?: unknown } }).result;
  return { params: vectorParams(result), count: typeof result?.points_count === "number" ? result.points_count : undefined };
}

async function check(config: Row, signal?: AbortSignal): Promise<CheckResult> {
  return safeCheck(qdrantSourceDefinition, config, async () => {
    const s = { ...settingsOf(config), attempts: INTERACTIVE_ATTEMPTS };
    const { params, count } = await describe(s, signal);
    const points = count === undefined ? "" : `, ${count} point${count === 1 ? "" : "s"}`;
    return { ok: true, details: `Connected to Qdrant: collection "${s.collection}" holds ${describeParams(params)}${points}.` };
  });
}

async function discover(config: Row, signal?: AbortSignal): Promise<Catalog> {
  try {
    const s = { ...settingsOf(config), attempts: INTERACTIVE_ATTEMPTS };
    const { params } = await describe(s, signal);
    return buildCatalog(
      [
        {
          name: s.collection,
          action: "fetch",
          url: `${s.url}${collectionPath(s)}`,
          json_schema: {
            type: "object",
            description: `Points of ${s.collection}: ${describeParams(params)}.`,
            properties: {
              id: { type: "string" },
              payload: { type: ["object", "null"] },
              vector: { type: ["array", "object", "null"] },
              score: { type: ["number", "null"], description: "Similarity to the query's vector (a search only)." },
            },
          },
          batch_support: true,
          batch_size: 1000,
          request_method: "POST",
          primary_key: ["id"],
        },
      ],
      // The reference's catalogue rate for this source.
      { request_rate_limit: 1200, request_rate_limit_unit: "minute", request_rate_concurrency: 10 },
    );
  } catch (err) {
    throw scrub(config, err);
  }
}

export const qdrantSource: SourceConnector = {
  definition: qdrantSourceDefinition,
  check,
  discover,
  query,
  checkQuery: (text) => void parseVectorQuery(text, MAX_LIMIT),
  read,
  readFingerprinted,
};

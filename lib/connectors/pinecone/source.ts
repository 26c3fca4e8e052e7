// Pinecone source: the namespace's vectors as rows (id, values, metadata, score). The model query is
// a JSON object (vectors/source-api.ts): with a vector, the nearest `limit` vectors (POST /query with
// values and metadata, as the reference's vector search does, filters in Pinecone's metadata filter
// language); without one, every vector of the namespace: ids page by page (GET /vectors/list,
// pagination.next), each page's vectors fetched (GET /vectors/fetch), never more than a page in
// memory. Rows are fingerprinted, so an unchanged namespace sends nothing on a re-run. Settings are
// the reference's (api_key, region, index_name, namespace). Reference: docs.pinecone.io/reference/api
// (query, list, fetch, describe_index_stats, describe_index).
import type { Catalog, CheckResult, ConnectorDefinition, FingerprintedBatch, FingerprintOptions, QueryResult, ReadOptions, Row, SourceConnector } from "../types";
import { buildCatalog } from "../shared/catalog";
import { optionalString } from "../shared/config";
import { ConnectorError, errorMessage, safeCheck } from "../shared/errors";
import { redact, secretValues } from "../shared/secrets";
import { fingerprinted, parseVectorQuery, previewColumns, type VectorQuery } from "../vectors/source-api";
import { dataPlane, DEFAULT_NAMESPACE, INTERACTIVE_ATTEMPTS, describeIndex, pineconeSettings, pineconeSpecification, regionNote, requestNamespace, type PineconeIndex, type PineconeSettings } from "./api";

/** Pinecone's largest topK with values and metadata, and its largest list page. */
const MAX_TOP_K = 1000;
const MAX_LIST_PAGE = 100;
const COLUMNS = ["id", "values", "metadata", "score"];

export const pineconeSourceDefinition: ConnectorDefinition = {
  name: "PineconeDB",
  title: "Pinecone",
  connectorType: "source",
  category: "Database",
  subCategory: "Vector Database",
  icon: "/icons/pinecone.svg",
  documentationUrl: "https://docs.pinecone.io/reference/api/introduction",
  streamType: "user_defined",
  supportsQuery: false,
  secretTargetFields: ["control_plane_url"],
  connectionSpecification: pineconeSpecification(true),
};

/** The reference's filter list in Pinecone's metadata filter language ($eq, $ne, $gt…, $in). */
export function pineconeFilter(query: VectorQuery): Row | undefined {
  const op: Record<string, string> = { eq: "$eq", neq: "$ne", gt: "$gt", gte: "$gte", lt: "$lt", lte: "$lte", in: "$in" };
  const conditions: Row[] = query.filters.map((f) => ({ [f.field]: { [op[f.operator]]: f.operator === "in" && !Array.isArray(f.value) ? [f.value] : f.value } }));
  if (query.filter) conditions.unshift(query.filter);
  if (conditions.length === 0) return undefined;
  return conditions.length === 1 ? conditions[0] : { $and: conditions };
}

interface Match {
  id?: unknown;
  score?: unknown;
  values?: unknown;
  metadata?: unknown;
}

const rowOf = (m: Match): Row => ({ id: String(m.id), values: m.values ?? null, metadata: m.metadata ?? null, score: typeof m.score === "number" ? m.score : null });

async function* vectors(s: PineconeSettings, index: PineconeIndex, namespace: string, query: VectorQuery, pageSize: number, signal?: AbortSignal): AsyncGenerator<Row[]> {
  const ns = requestNamespace(query.namespace ?? namespace);
  const filter = pineconeFilter(query);
  if (query.vector) {
    const body = { namespace: ns, vector: query.vector, topK: query.limit ?? 10, includeValues: true, includeMetadata: true, ...(filter ? { filter } : {}) };
    const matches = ((await dataPlane(s, index, "POST", "/query", body, signal)) as { matches?: Match[] }).matches ?? [];
    for (let i = 0; i < matches.length; i += pageSize) yield matches.slice(i, i + pageSize).map(rowOf);
    return;
  }
  if (filter) throw new ConnectorError("Pinecone lists vectors without filtering: give the query a vector to filter a search.");
  let token: string | undefined;
  let left = query.limit ?? Number.POSITIVE_INFINITY;
  do {
    const params = new URLSearchParams({ namespace: ns, limit: String(Math.min(pageSize, MAX_LIST_PAGE, left)) });
    if (token) params.set("paginationToken", token);
    const page = (await dataPlane(s, index, "GET", `/vectors/list?${params}`, undefined, signal)) as { vectors?: { id?: unknown }[]; pagination?: { next?: unknown } };
    const ids = (page.vectors ?? []).map((v) => v.id).filter((id): id is string => typeof id === "string");
    if (ids.length > 0) {
      const fetchParams = new URLSearchParams({ namespace: ns });
      for (const id of ids) fetchParams.append("ids", id);
      const fetched = ((await dataPlane(s, index, "GET", `/vectors/fetch?${fetchParams}`, undefined, signal)) as { vectors?: Record<string, Match> }).vectors ?? {};
      // A vector deleted between the two calls is skipped.
      const rows = ids.filter((id) => fetched[id]).map((id) => rowOf({ ...fetched[id], id }));
      left -= rows.length;
      if (rows.length > 0) yield rows;
    }
    token = typeof page.pagination?.next === "string" && page.pagination.next !== "" ? page.pagination.next : undefined;
  } while (token && left > 0);
}

function scrub(config: Row, err: unknown): ConnectorError {
  return new ConnectorError(redact(errorMessage(err), secretValues(config, pineconeSourceDefinition)), (err as { code?: string }).code);
}

const namespaceOf = (config: Row) => optionalString(config, "namespace") ?? DEFAULT_NAMESPACE;

async function* read(config: Row, options: ReadOptions): AsyncGenerator<Row[]> {
  try {
    const s = pineconeSettings(config);
    const query = parseVectorQuery(options.query, MAX_TOP_K);
    const index = await describeIndex(s, options.signal);
    yield* vectors(s, index, namespaceOf(config), query, Math.max(1, Math.floor(options.batchSize)), options.signal);
  } catch (err) {
    throw scrub(config, err);
  }
}

async function* readFingerprinted(config: Row, options: ReadOptions & { fingerprint: FingerprintOptions }): AsyncGenerator<FingerprintedBatch> {
  for await (const rows of read(config, options)) yield fingerprinted(rows, options.fingerprint);
}

async function query(config: Row, modelQuery: string, limit: number, signal?: AbortSignal): Promise<QueryResult> {
  try {
    const s = { ...pineconeSettings(config), attempts: INTERACTIVE_ATTEMPTS };
    const q = parseVectorQuery(modelQuery, MAX_TOP_K);
    const wanted = Math.max(1, Math.min(limit, q.limit ?? limit, MAX_TOP_K));
    const index = await describeIndex(s, signal);
    const rows: Row[] = [];
    for await (const page of vectors(s, index, namespaceOf(config), { ...q, limit: wanted }, wanted, signal)) rows.push(...page);
    return { columns: previewColumns(rows, COLUMNS), rows: rows.slice(0, wanted) };
  } catch (err) {
    throw scrub(config, err);
  }
}

async function check(config: Row, signal?: AbortSignal): Promise<CheckResult> {
  return safeCheck(pineconeSourceDefinition, config, async () => {
    const s = { ...pineconeSettings(config), attempts: INTERACTIVE_ATTEMPTS };
    const index = await describeIndex(s, signal);
    const stats = (await dataPlane(s, index, "POST", "/describe_index_stats", {}, signal)) as { namespaces?: Record<string, { vectorCount?: unknown }> };
    const namespace = namespaceOf(config);
    const count = stats.namespaces?.[requestNamespace(namespace)]?.vectorCount ?? stats.namespaces?.[namespace]?.vectorCount;
    const held = typeof count === "number" ? `${count} vector${count === 1 ? "" : "s"}` : "no vectors yet";
    return { ok: true, details: `Connected to Pinecone index "${index.name}" (${index.dimension ?? "?"} dimensions): namespace ${namespace} holds ${held}.${regionNote(s, index)}` };
  });
}

async function discover(config: Row, signal?: AbortSignal): Promise<Catalog> {
  try {
    const s = { ...pineconeSettings(config), attempts: INTERACTIVE_ATTEMPTS };
    const index = await describeIndex(s, signal);
    const namespace = namespaceOf(config);
    return buildCatalog(
      [
        {
          name: namespace,
          action: "fetch",
          url: index.url,
          json_schema: {
            type: "object",
            description: `Vectors of ${index.name}, namespace ${namespace}${index.dimension ? ` (${index.dimension} dimensions)` : ""}.`,
            properties: {
              id: { type: "string" },
              values: { type: ["array", "null"], items: { type: "number" } },
              metadata: { type: ["object", "null"] },
              score: { type: ["number", "null"], description: "Similarity to the query's vector (a search only)." },
            },
          },
          batch_support: true,
          batch_size: MAX_LIST_PAGE,
          request_method: "POST",
          primary_key: ["id"],
        },
      ],
      // The reference's catalogue rate for this source.
      { request_rate_limit: 120_000, request_rate_limit_unit: "minute", request_rate_concurrency: 10 },
    );
  } catch (err) {
    throw scrub(config, err);
  }
}

export const pineconeSource: SourceConnector = {
  definition: pineconeSourceDefinition,
  check,
  discover,
  query,
  checkQuery: (text) => void parseVectorQuery(text, MAX_TOP_K),
  read,
  readFingerprinted,
};

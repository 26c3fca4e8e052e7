// A Pinecone API emulator, written from the published reference (docs.pinecone.io/reference/api,
// version 2025-01): the control plane's describe index (GET /indexes/{name}: dimension, metric, host
// without a scheme, spec, status) and the data plane of that host: POST /vectors/upsert (at most
// 1,000 vectors and 2 MB, dimension checked, answering upsertedCount), POST /vectors/delete,
// POST /describe_index_stats, POST /query (topK, includeValues, includeMetadata, metadata filters
// $eq $ne $gt $gte $lt $lte $in $and), GET /vectors/list (limit at most 100, pagination.next) and
// GET /vectors/fetch (ids repeated); the Api-Key header; error bodies {"code", "message", "details"}
// on the data plane and {"error": {"code", "message"}, "status"} on the control plane; 429
// TOO_MANY_REQUESTS past a request window (the docs do not promise a Retry-After: the emulator sends
// one so the test can see it honoured; without one the engine's backoff applies). Both planes are served here (the index's host is this server).
// Wordings are ours. Tests only.
import type { ServerResponse } from "node:http";
import { json, startHttpServer as startEmulator, type ReceivedRequest } from "../support/connectors";
import { FixedWindow, parseBody } from "./rate-window";

const MAX_VECTORS = 1000;
const MAX_BODY_BYTES = 2 * 1024 * 1024;

export interface PineconeVector {
  id: string;
  values: number[];
  metadata?: Record<string, unknown>;
}

type Filter = Record<string, unknown>;

function matches(v: PineconeVector, filter: Filter | undefined): boolean {
  if (!filter) return true;
  return Object.entries(filter).every(([key, cond]) => {
    if (key === "$and") return (cond as Filter[]).every((f) => matches(v, f));
    if (key === "$or") return (cond as Filter[]).some((f) => matches(v, f));
    const value = v.metadata?.[key];
    const ops = typeof cond === "object" && cond !== null && !Array.isArray(cond) ? (cond as Record<string, unknown>) : { $eq: cond };
    return Object.entries(ops).every(([op, x]) => {
      switch (op) {
        case "$eq":
          return value === x;
        case "$ne":
          return value !== x;
        case "$gt":
          return typeof value === "number" && value > (x as number);
        case "$gte":
          return typeof value === "number" && value >= (x as number);
        case "$lt":
          return typeof value === "number" && value < (x as number);
        case "$lte":
          return typeof value === "number" && value <= (x as number);
        case "$in":
          return (x as unknown[]).includes(value);
        default:
          return false;
      }
    });
  });
}

const cosine = (a: number[], b: number[]) => {
  let dot = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
};

export async function startPineconeEmulator(options: { apiKey: string; indexName: string; dimension: number; region?: string }) {
  /** namespace ("" is the default) → id → vector */
  const namespaces = new Map<string, Map<string, PineconeVector>>();
  const window = new FixedWindow(100_000, 1000);
  const state = { ready: true };
  const dataError = (res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}) => json(res, status, { code, message, details: [] }, headers);
  const space = (ns: unknown) => {
    const name = typeof ns === "string" ? ns : "";
    let m = namespaces.get(name);
    if (!m) namespaces.set(name, (m = new Map()));
    return m;
  };

  function handle(req: ReceivedRequest, res: ServerResponse) {
    const url = new URL(req.url, "http://emulator");
    if (req.headers["api-key"] !== options.apiKey) {
      return url.pathname.startsWith("/indexes")
        ? json(res, 401, { error: { code: "UNAUTHENTICATED", message: "Invalid API Key" }, status: 401 })
        : dataError(res, 401, 16, "Invalid API Key");
    }
    if (!window.hit(options.apiKey).allowed) return dataError(res, 429, 8, "Request failed. You've reached the max request rate for this index.", { "retry-after": "1" });
    const body = (parseBody(req) ?? {}) as Record<string, unknown>;
    const index = /^\/indexes\/([^/]+)$/.exec(url.pathname);
    if (req.method === "GET" && index) {
      if (decodeURIComponent(index[1]) !== options.indexName) return json(res, 404, { error: { code: "NOT_FOUND", message: `Resource ${index[1]} not found` }, status: 404 });
      return json(res, 200, {
        name: options.indexName,
        dimension: options.dimension,
        metric: "cosine",
        host: req.headers.host,
        spec: { serverless: { cloud: "aws", region: options.region ?? "us-east-1" } },
        status: { ready: state.ready, state: state.ready ? "Ready" : "Initializing" },
        deletion_protection: "disabled",
      });
    }
    if (req.method === "POST" && url.pathname === "/describe_index_stats") {
      const ns = Object.fromEntries([...namespaces].filter(([, m]) => m.size > 0).map(([n, m]) => [n, { vectorCount: m.size }]));
      const total = [...namespaces.values()].reduce((a, m) => a + m.size, 0);
      return json(res, 200, { namespaces: ns, dimension: options.dimension, indexFullness: 0, totalVectorCount: total });
    }
    if (req.method === "POST" && url.pathname === "/vectors/upsert") {
      if (Buffer.byteLength(req.body) > MAX_BODY_BYTES) return dataError(res, 400, 3, `Request size ${Buffer.byteLength(req.body)} exceeds the maximum supported size of ${MAX_BODY_BYTES} bytes`);
      const vectors = body.vectors as PineconeVector[] | undefined;
      if (!Array.isArray(vectors)) return dataError(res, 400, 3, "Missing field 'vectors'");
      if (vectors.length > MAX_VECTORS) return dataError(res, 400, 3, `The number of vectors in an upsert request is limited to ${MAX_VECTORS}`);
      for (const v of vectors) {
        if (typeof v.id !== "string" || v.id === "") return dataError(res, 400, 3, "Vector ID must be a non-empty string");
        if (!Array.isArray(v.values) || v.values.length !== options.dimension) return dataError(res, 400, 3, `Vector dimension ${Array.isArray(v.values) ? v.values.length : 0} does not match the dimension of the index ${options.dimension}`);
        for (const [k, x] of Object.entries(v.metadata ?? {})) {
          if (x === null || (typeof x === "object" && !Array.isArray(x))) return dataError(res, 400, 3, `Metadata value for field '${k}' must be a string, number, boolean or list of strings`);
        }
      }
      const m = space(body.namespace);
      for (const v of vectors) m.set(v.id, { id: v.id, values: v.values, ...(v.metadata ? { metadata: v.metadata } : {}) });
      return json(res, 200, { upsertedCount: vectors.length });
    }
    if (req.method === "POST" && url.pathname === "/vectors/delete") {
      const m = space(body.namespace);
      if (body.deleteAll === true) m.clear();
      else for (const id of (body.ids as string[] | undefined) ?? []) m.delete(id);
      return json(res, 200, {});
    }
    if (req.method === "POST" && url.pathname === "/query") {
      const vector = body.vector as number[] | undefined;
      if (!Array.isArray(vector) || vector.length !== options.dimension) return dataError(res, 400, 3, `Query vector dimension ${Array.isArray(vector) ? vector.length : 0} does not match the dimension of the index ${options.dimension}`);
      const topK = typeof body.topK === "number" ? body.topK : 10;
      const found = [...space(body.namespace).values()]
        .filter((v) => matches(v, body.filter as Filter | undefined))
        .map((v) => ({ id: v.id, score: cosine(vector, v.values), ...(body.includeValues ? { values: v.values } : { values: [] }), ...(body.includeMetadata && v.metadata ? { metadata: v.metadata } : {}) }))
        .sort((a, b) => b.score - a.score)
        .slice(0, topK);
      return json(res, 200, { results: [], matches: found, namespace: String(body.namespace ?? ""), usage: { readUnits: 5 } });
    }
    if (req.method === "GET" && url.pathname === "/vectors/list") {
      const limit = Math.min(100, Number(url.searchParams.get("limit") ?? 100));
      const from = Number(url.searchParams.get("paginationToken") ?? 0);
      const ids = [...space(url.searchParams.get("namespace")).keys()].sort();
      const page = ids.slice(from, from + limit);
      return json(res, 200, { vectors: page.map((id) => ({ id })), ...(from + limit < ids.length ? { pagination: { next: String(from + limit) } } : {}), namespace: url.searchParams.get("namespace") ?? "", usage: { readUnits: 1 } });
    }
    if (req.method === "GET" && url.pathname === "/vectors/fetch") {
      const m = space(url.searchParams.get("namespace"));
      const vectors = Object.fromEntries(url.searchParams.getAll("ids").filter((id) => m.has(id)).map((id) => [id, m.get(id)]));
      return json(res, 200, { vectors, namespace: url.searchParams.get("namespace") ?? "", usage: { readUnits: 1 } });
    }
    dataError(res, 404, 5, `No route for ${req.method} ${url.pathname}`);
  }

  const server = await startEmulator(handle);
  return { ...server, namespaces, window, state, space };
}

// A Qdrant REST API emulator, written from the published reference (api.qdrant.tech: Collections
// list and get, Points upsert (PUT /collections/{name}/points, wait), delete (POST …/points/delete),
// scroll (POST …/points/scroll, next_page_offset) and search (POST …/points/search); filters with
// must / must_not of match {value | any} and range conditions; the `api-key` header; error bodies
// {"status": {"error": "..."}, "time": …}; and the 429 a collection's strict-mode read/write rate
// limits answer; the docs do not promise a Retry-After, the emulator sends one so the test can see it
// honoured, and without one the engine's backoff applies). Point ids are unsigned integers or UUIDs; a request with one bad point is
// refused whole with 400, as Qdrant does. Wordings are ours. Tests only.
import type { ServerResponse } from "node:http";
import { json, startHttpServer as startEmulator, type ReceivedRequest } from "../support/connectors";
import { FixedWindow, parseBody } from "./rate-window";

const UUID = /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32})$/i;
const MAX_BODY_BYTES = 32 * 1024 * 1024;

type Vector = number[] | Record<string, number[]>;
export interface QdrantPoint {
  id: number | string;
  vector: Vector;
  payload: Record<string, unknown>;
}
export interface QdrantCollection {
  /** One unnamed vector's size, or named vectors' sizes. */
  vectors: number | Record<string, number>;
  payloadSchema: Record<string, string>;
  points: Map<string, QdrantPoint>;
}

type Cond = { key: string; match?: { value?: unknown; any?: unknown[] }; range?: Record<string, number> };
type Filter = { must?: Cond[]; must_not?: Cond[]; should?: Cond[] };

function matches(point: QdrantPoint, filter: Filter | undefined): boolean {
  if (!filter) return true;
  const test = (c: Cond) => {
    const v = point.payload[c.key];
    if (c.match && "value" in c.match) return v === c.match.value;
    if (c.match?.any) return c.match.any.includes(v);
    if (c.range) {
      if (typeof v !== "number") return false;
      const r = c.range;
      return (r.gt === undefined || v > r.gt) && (r.gte === undefined || v >= r.gte) && (r.lt === undefined || v < r.lt) && (r.lte === undefined || v <= r.lte);
    }
    return false;
  };
  return (filter.must ?? []).every(test) && !(filter.must_not ?? []).some(test) && (!filter.should?.length || filter.should.some(test));
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

/** Ids in Qdrant's scroll order: integers first, ascending, then UUIDs. */
const idOrder = (a: QdrantPoint, b: QdrantPoint) =>
  typeof a.id === "number" && typeof b.id === "number" ? a.id - b.id : typeof a.id === "number" ? -1 : typeof b.id === "number" ? 1 : String(a.id).localeCompare(String(b.id));

export async function startQdrantEmulator(options: { apiKey: string }) {
  const collections = new Map<string, QdrantCollection>();
  const window = new FixedWindow(100_000, 1000);
  const started = Date.now();
  const error = (res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}) =>
    json(res, status, { status: { error: message }, time: 0.0001 }, headers);
  const ok = (res: ServerResponse, result: unknown) => json(res, 200, { result, status: "ok", time: (Date.now() - started) / 1e6 });

  function pointError(c: QdrantCollection, p: Partial<QdrantPoint> | undefined): string | undefined {
    if (!p || (typeof p.id !== "number" && typeof p.id !== "string")) return "Format error in JSON body: missing field `id`";
    if (typeof p.id === "number" ? !Number.isInteger(p.id) || p.id < 0 : !UUID.test(p.id)) return `Format error in JSON body: value ${JSON.stringify(p.id)} is not a valid point ID, valid values are either an unsigned integer or a UUID`;
    const check = (v: unknown, size: number, name: string) => {
      if (!Array.isArray(v)) return `Wrong input: Not existing vector name error: ${name}`;
      if (v.length !== size) return `Wrong input: Vector dimension error: expected dim: ${size}, got ${v.length}`;
      return undefined;
    };
    if (typeof c.vectors === "number") return check(p.vector, c.vectors, "");
    for (const [name, v] of Object.entries((p.vector ?? {}) as Record<string, unknown>)) {
      const size = (c.vectors as Record<string, number>)[name];
      if (size === undefined) return `Wrong input: Not existing vector name error: ${name}`;
      const e = check(v, size, name);
      if (e) return e;
    }
    return undefined;
  }

  const shown = (p: QdrantPoint, body: { with_payload?: boolean; with_vector?: boolean }) => ({
    id: p.id,
    version: 1,
    payload: body.with_payload ? p.payload : null,
    vector: body.with_vector ? p.vector : null,
  });

  function handle(req: ReceivedRequest, res: ServerResponse) {
    if (req.headers["api-key"] !== options.apiKey) return error(res, 401, "Invalid api-key");
    if (!window.hit(options.apiKey).allowed) return error(res, 429, "Too many requests: rate limit exceeded", { "retry-after": "1" });
    if (Buffer.byteLength(req.body) > MAX_BODY_BYTES) return error(res, 413, "Payload too large");
    const url = new URL(req.url, "http://emulator");
    if (req.method === "GET" && url.pathname === "/collections") return ok(res, { collections: [...collections.keys()].map((name) => ({ name })) });
    const m = /^\/collections\/([^/]+)(\/points(?:\/(delete|scroll|search))?)?$/.exec(url.pathname);
    const name = m ? decodeURIComponent(m[1]) : "";
    const c = collections.get(name);
    if (!m || !c) return error(res, 404, `Not found: Collection \`${name}\` doesn't exist!`);
    const body = (parseBody(req) ?? {}) as Record<string, unknown>;
    if (req.method === "GET" && !m[2]) {
      const vectors = typeof c.vectors === "number" ? { size: c.vectors, distance: "Cosine" } : Object.fromEntries(Object.entries(c.vectors).map(([n, size]) => [n, { size, distance: "Cosine" }]));
      return ok(res, {
        status: "green",
        optimizer_status: "ok",
        points_count: c.points.size,
        config: { params: { vectors, shard_number: 1, replication_factor: 1 } },
        payload_schema: Object.fromEntries(Object.entries(c.payloadSchema).map(([k, t]) => [k, { data_type: t, params: { type: t }, points: c.points.size }])),
      });
    }
    const status = url.searchParams.get("wait") === "true" ? "completed" : "acknowledged";
    if (req.method === "PUT" && m[2] && !m[3]) {
      const points = body.points as Partial<QdrantPoint>[] | undefined;
      if (!Array.isArray(points)) return error(res, 400, "Format error in JSON body: missing field `points`");
      for (const p of points) {
        const e = pointError(c, p);
        if (e) return error(res, 400, e);
      }
      for (const p of points as QdrantPoint[]) c.points.set(String(p.id), { id: p.id, vector: p.vector, payload: p.payload ?? {} });
      return ok(res, { operation_id: c.points.size, status });
    }
    if (req.method === "POST" && m[3] === "delete") {
      const ids = body.points as unknown[] | undefined;
      if (!Array.isArray(ids)) return error(res, 400, "Format error in JSON body: missing field `points`");
      for (const id of ids) c.points.delete(String(id));
      return ok(res, { operation_id: c.points.size, status });
    }
    if (req.method === "POST" && m[3] === "scroll") {
      const limit = typeof body.limit === "number" ? body.limit : 10;
      const all = [...c.points.values()].filter((p) => matches(p, body.filter as Filter | undefined)).sort(idOrder);
      const from = body.offset === undefined || body.offset === null ? 0 : all.findIndex((p) => String(p.id) === String(body.offset));
      const page = from < 0 ? [] : all.slice(from, from + limit);
      const next = from >= 0 && from + limit < all.length ? all[from + limit].id : null;
      return ok(res, { points: page.map((p) => shown(p, body as never)), next_page_offset: next });
    }
    if (req.method === "POST" && m[3] === "search") {
      const vector = body.vector as number[] | undefined;
      if (!Array.isArray(vector) || typeof c.vectors !== "number" || vector.length !== c.vectors) return error(res, 400, `Wrong input: Vector dimension error: expected dim: ${String(c.vectors)}, got ${Array.isArray(vector) ? vector.length : 0}`);
      const limit = typeof body.limit === "number" ? body.limit : 10;
      const found = [...c.points.values()]
        .filter((p) => matches(p, body.filter as Filter | undefined))
        .map((p) => ({ ...shown(p, body as never), score: cosine(vector, p.vector as number[]) }))
        .sort((a, b) => b.score - a.score)
        .slice(0, limit);
      return ok(res, found);
    }
    error(res, 404, `No route for ${req.method} ${url.pathname}`);
  }

  const server = await startEmulator(handle);
  return {
    ...server,
    collections,
    window,
    addCollection(name: string, vectors: number | Record<string, number>, payloadSchema: Record<string, string> = {}) {
      const c: QdrantCollection = { vectors, payloadSchema, points: new Map() };
      collections.set(name, c);
      return c;
    },
  };
}

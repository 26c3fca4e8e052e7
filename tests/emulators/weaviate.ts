// A Weaviate REST API emulator, written from the published reference
// (weaviate.io/developers/weaviate/api/rest: GET /v1/schema, GET /v1/objects with class, limit and
// include=vector, POST /v1/batch/objects answering one result per object ({"result": {"status",
// "errors": {"error": [{"message"}]}}}), DELETE /v1/batch/objects with a where filter on id
// (ContainsAny) and verbose output; Bearer API keys; {"error": [{"message"}]} error bodies) and the
// 429 with Retry-After a rate-limited cloud instance answers. Objects of a class share one vector
// length (the first object's), as Weaviate's vector index requires; int and number properties are
// type-checked. Wordings are ours. Tests only.
import type { ServerResponse } from "node:http";
import { json, startHttpServer as startEmulator, type ReceivedRequest } from "../support/connectors";
import { FixedWindow, parseBody } from "./rate-window";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface WeaviateObject {
  class: string;
  id: string;
  vector: number[];
  properties: Record<string, unknown>;
}
export interface WeaviateClass {
  properties: Record<string, string>;
  objects: Map<string, WeaviateObject>;
}

export async function startWeaviateEmulator(options: { apiKey: string }) {
  const classes = new Map<string, WeaviateClass>();
  const window = new FixedWindow(100_000, 1000);
  const error = (res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}) => json(res, status, { error: [{ message }] }, headers);

  function objectError(o: Partial<WeaviateObject>): string | undefined {
    const c = classes.get(String(o.class));
    if (!c) return `class "${String(o.class)}" not found in schema`;
    if (typeof o.id !== "string" || !UUID.test(o.id)) return `id "${String(o.id)}" is not a valid uuid`;
    if (!Array.isArray(o.vector) || o.vector.length === 0) return "no vector given and the class has no vectorizer";
    const existing = [...c.objects.values()].find((x) => x.id !== o.id);
    if (existing && existing.vector.length !== o.vector.length) {
      return `insert to vector index: new node has a vector with length ${o.vector.length}. Existing nodes have vectors with length ${existing.vector.length}`;
    }
    for (const [name, value] of Object.entries(o.properties ?? {})) {
      const type = c.properties[name];
      if (value === null || type === undefined) continue;
      if (type === "int" && !Number.isInteger(value)) return `invalid integer property '${name}' on class '${o.class}': requires an integer, the given value is '${String(value)}'`;
      if (type === "number" && typeof value !== "number") return `invalid number property '${name}' on class '${o.class}': requires a float, the given value is '${String(value)}'`;
    }
    return undefined;
  }

  function handle(req: ReceivedRequest, res: ServerResponse) {
    if (req.headers.authorization !== `Bearer ${options.apiKey}`) return error(res, 401, "unauthorized: invalid api key");
    if (!window.hit(options.apiKey).allowed) return error(res, 429, "rate limit exceeded", { "retry-after": "1" });
    const url = new URL(req.url, "http://emulator");
    if (req.method === "GET" && url.pathname === "/v1/schema") {
      return json(res, 200, {
        classes: [...classes].map(([name, c]) => ({ class: name, vectorizer: "none", properties: Object.entries(c.properties).map(([p, t]) => ({ name: p, dataType: [t] })) })),
      });
    }
    if (req.method === "GET" && url.pathname === "/v1/objects") {
      const c = classes.get(url.searchParams.get("class") ?? "");
      const limit = Number(url.searchParams.get("limit") ?? 25);
      const withVector = url.searchParams.get("include") === "vector";
      const objects = [...(c?.objects.values() ?? [])].slice(0, limit).map((o) => ({ ...o, ...(withVector ? {} : { vector: undefined }) }));
      return json(res, 200, { objects, deprecations: null, totalResults: objects.length });
    }
    if (req.method === "POST" && url.pathname === "/v1/batch/objects") {
      const objects = (parseBody(req) as { objects?: Partial<WeaviateObject>[] } | undefined)?.objects;
      if (!Array.isArray(objects)) return error(res, 422, "body must hold an objects array");
      const answer = objects.map((o) => {
        const e = objectError(o);
        if (!e) classes.get(String(o.class))!.objects.set(String(o.id), { class: String(o.class), id: String(o.id), vector: o.vector!, properties: o.properties ?? {} });
        return { ...o, creationTimeUnix: Date.now(), result: e ? { status: "FAILED", errors: { error: [{ message: e }] } } : { status: "SUCCESS" } };
      });
      return json(res, 200, answer);
    }
    if (req.method === "DELETE" && url.pathname === "/v1/batch/objects") {
      const match = (parseBody(req) as { match?: { class?: string; where?: { path?: string[]; operator?: string; valueTextArray?: string[] } }; output?: string } | undefined)?.match;
      const c = classes.get(String(match?.class));
      if (!c) return error(res, 422, `class "${String(match?.class)}" not found in schema`);
      if (match?.where?.operator !== "ContainsAny" || match.where.path?.[0] !== "id" || !Array.isArray(match.where.valueTextArray)) return error(res, 422, "unsupported where filter");
      const found = match.where.valueTextArray.filter((id) => c.objects.has(id));
      for (const id of found) c.objects.delete(id);
      return json(res, 200, { match, output: "verbose", dryRun: false, results: { matches: found.length, limit: 10000, successful: found.length, failed: 0, objects: found.map((id) => ({ id, status: "SUCCESS" })) } });
    }
    error(res, 404, `no route for ${req.method} ${url.pathname}`);
  }

  const server = await startEmulator(handle);
  return {
    ...server,
    classes,
    window,
    addClass(name: string, properties: Record<string, string>) {
      const c: WeaviateClass = { properties, objects: new Map() };
      classes.set(name, c);
      return c;
    },
  };
}

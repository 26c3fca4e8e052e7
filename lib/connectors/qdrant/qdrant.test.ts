// Qdrant destination and source against the Qdrant REST emulator (tests/emulators/qdrant.ts) on 127.0.0.1.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Row, Stream } from "../types";
import { getDefinition, maskSecrets, mergeMaskedSecrets, SECRET_MASK, SecretTargetChangedError } from "../registry";
import { loadThrough, parseBody, records } from "@/tests/emulators/common";
import { startQdrantEmulator } from "@/tests/emulators/qdrant";
import { qdrantDestination } from "./destination";
import { qdrantSource } from "./source";

const KEY = "qdrant-emulator-key-0123456789";
let q: Awaited<ReturnType<typeof startQdrantEmulator>>;
let stream: Stream;
const config = (overrides: Row = {}): Row => ({ api_url: q.url, api_key: KEY, timeout: 10, ...overrides });
const sourceConfig = (overrides: Row = {}): Row => ({ host: q.url, api_key: KEY, collection_name: "docs", timeout: 10, ...overrides });
const doc = (i: number): Row => ({ id: i, vector: [i, 1, 0, 0.5], payload: { title: `Doc ${i}` }, rank: String(i) });
const upserts = () => q.requests.filter((r) => r.method === "PUT");

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

beforeAll(async () => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  q = await startQdrantEmulator({ apiKey: KEY });
  q.addCollection("docs", 4, { title: "keyword", rank: "integer" });
  q.addCollection("multi", { text: 3, image: 2 });
  stream = (await qdrantDestination.discover(config())).streams.find((s) => s.name === "docs")!;
});
afterAll(() => q.close());
beforeEach(() => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  q.requests.length = 0;
  q.window.max = 100_000;
  q.window.reset();
  for (const c of q.collections.values()) c.points.clear();
});

describe("Qdrant destination", () => {
  it("checks the key (api-key header) and says how many collections there are", async () => {
    expect(await qdrantDestination.check(config())).toEqual({ ok: true, details: "Connected to Qdrant: 2 collections." });
    expect(q.requests[0].headers["api-key"]).toBe(KEY);
    const bad = await qdrantDestination.check(config({ api_key: "wrong" }));
    expect(bad).toEqual({ ok: false, details: "Qdrant rejected the credentials. Qdrant answered HTTP 401: Invalid api-key" });
  });

  it("discovers each collection with its vector size and payload fields", async () => {
    const catalog = await qdrantDestination.discover(config());
    expect(catalog.streams.map((s) => s.name)).toEqual(["docs", "multi"]);
    expect(stream).toMatchObject({ primary_key: ["id"], batch_size: 1000 });
    expect(stream.json_schema).toMatchObject({ properties: { vector: { minItems: 4, maxItems: 4 }, rank: { type: ["integer", "null"] } } });
    expect(qdrantDestination.definition.writeModes).toEqual(["upsert", "mirror"]);
  });

  it("upserts points in one request and fails a wrong-length vector or a bad id alone, unsent", async () => {
    const batch = records(4, doc);
    batch[1].payload.vector = [1, 2, 3];
    batch[2].payload.id = "not-an-id";
    const outcomes = await qdrantDestination.write(config(), batch, { stream, batch: true });
    expect(outcomes.map((o) => [o.key, o.ok])).toEqual([["2", false], ["3", false], ["1", true], ["4", true]]);
    expect(outcomes[0].error).toBe('Column "vector" holds a vector of 3 numbers; the index takes vectors of exactly 4.');
    expect(outcomes[1].error).toBe('Column "id" holds "not-an-id", which Qdrant cannot take as a point id: ids are unsigned integers or UUIDs.');
    expect(upserts()).toHaveLength(1);
    expect(upserts()[0].url).toBe("/collections/docs/points?wait=true");
    // Fields besides id, vector and payload join the payload; a number field's text becomes a number.
    expect((parseBody(upserts()[0]) as { points: Row[] }).points[0]).toEqual({ id: 1, vector: [1, 1, 0, 0.5], payload: { title: "Doc 1", rank: 1 } });
    expect(q.collections.get("docs")!.points.size).toBe(2);
  });

  it("isolates the point Qdrant refuses in a request it refuses whole (the engine bisects)", async () => {
    // A stream as saved before discovery knew the size: Qdrant itself finds the bad vector.
    const blind: Stream = { ...stream, json_schema: { type: "object", properties: { id: {}, vector: {}, payload: {} } } };
    const batch = records(5, doc);
    batch[3].payload.vector = [1, 2];
    const { outcomes } = await loadThrough(qdrantDestination, config(), blind, batch);
    expect(outcomes.filter((o) => !o.ok).map((o) => o.key)).toEqual(["4"]);
    expect(outcomes.find((o) => o.key === "4")?.error).toBe("Qdrant answered HTTP 400: Wrong input: Vector dimension error: expected dim: 4, got 2");
    expect(q.collections.get("docs")!.points.size).toBe(4);
  });

  it("deletes points for mirror mode, and writes named vectors", async () => {
    await qdrantDestination.write(config(), records(3, doc), { stream, batch: true });
    const deleted = await qdrantDestination.write(config(), records(2, doc, "delete"), { stream, batch: true });
    expect(deleted.every((o) => o.ok)).toBe(true);
    expect(parseBody(q.requests.at(-1)!)).toEqual({ points: [1, 2] });
    expect([...q.collections.get("docs")!.points.keys()]).toEqual(["3"]);
    const multi = (await qdrantDestination.discover(config())).streams.find((s) => s.name === "multi")!;
    const id = "5c56c793-69f3-4fbf-87e6-c4bf54c28c26";
    const out = await qdrantDestination.write(config(), [
      { key: "a", action: "upsert", payload: { id, vector: { text: [1, 2, 3], image: [1, 0] } } },
      { key: "b", action: "upsert", payload: { id: 7, vector: { text: [1, 2] } } },
      { key: "c", action: "upsert", payload: { id: 8, vector: { audio: [1] } } },
    ], { stream: multi, batch: true });
    expect(out.map((o) => [o.key, o.ok])).toEqual([["b", false], ["c", false], ["a", true]]);
    expect(out[0].error).toBe('Column "vector.text" holds a vector of 2 numbers; the index takes vectors of exactly 3.');
    expect(out[1].error).toContain('names the vector "audio", which the collection does not have');
    expect(q.collections.get("multi")!.points.get(id)?.vector).toEqual({ text: [1, 2, 3], image: [1, 0] });
  });

  it("honours Retry-After on a 429 through the engine", async () => {
    q.window.max = 0;
    const [throttled] = await qdrantDestination.write(config(), records(1, doc), { stream, batch: true });
    expect(throttled).toMatchObject({ ok: false, status: 429, retryable: true, retryAfterSeconds: 1 });
    q.window.reset();
    q.window.max = 1;
    await qdrantDestination.check(config());
    const { outcomes } = await loadThrough(qdrantDestination, config(), stream, records(2, doc), { maxAttempts: 2 });
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(q.requests.filter((r) => r.method === "PUT").length).toBeGreaterThanOrEqual(2);
  });

  it("masks the key, keeps it off a new URL, and obeys the outbound policy", async () => {
    const definition = getDefinition("Qdrant", "destination")!;
    expect(definition.secretTargetFields).toEqual(["api_url"]);
    expect(maskSecrets(config(), definition).api_key).toBe(SECRET_MASK);
    expect(() => mergeMaskedSecrets({ ...config(), api_key: SECRET_MASK, api_url: "https://elsewhere.example" }, config(), definition)).toThrow(SecretTargetChangedError);
    const outcomes = await qdrantDestination.write(config({ api_key: "wrong" }), records(1, doc), { stream, batch: true });
    expect(JSON.stringify(outcomes)).not.toContain(KEY);
    process.env.OUTBOUND_ALLOW_PRIVATE = "";
    q.requests.length = 0;
    const [blocked] = await qdrantDestination.write(config(), records(1, doc), { stream, batch: true });
    expect(blocked).toMatchObject({ ok: false, retryable: false, error: expect.stringMatching(/private, loopback or link-local/) });
    expect(q.requests).toHaveLength(0);
  });
});

describe("Qdrant source", () => {
  beforeEach(async () => {
    await qdrantDestination.write(config(), records(25, doc), { stream, batch: true });
    q.requests.length = 0;
  });

  it("checks the collection and discovers its point columns", async () => {
    expect(await qdrantSource.check(sourceConfig())).toEqual({ ok: true, details: 'Connected to Qdrant: collection "docs" holds vectors of 4 dimensions, 25 points.' });
    expect(await qdrantSource.check(sourceConfig({ collection_name: "none" }))).toEqual({ ok: false, details: "Qdrant answered HTTP 404: Not found: Collection `none` doesn't exist!" });
    const catalog = await qdrantSource.discover(sourceConfig());
    expect(Object.keys(catalog.streams[0].json_schema.properties as Row)).toEqual(["id", "payload", "vector", "score"]);
  });

  it("lists every point page by page (scroll) and fingerprints the rows", async () => {
    const pages = await collect(qdrantSource.read(sourceConfig(), { query: "{}", batchSize: 10 }));
    expect(pages.map((p) => p.length)).toEqual([10, 10, 5]);
    expect(pages[0][0]).toEqual({ id: "1", payload: { title: "Doc 1", rank: 1 }, vector: [1, 1, 0, 0.5], score: null });
    expect(q.requests.map((r) => (parseBody(r) as Row).offset ?? null)).toEqual([null, 11, 21]);
    const first = await collect(qdrantSource.readFingerprinted!(sourceConfig(), { query: "", batchSize: 100, fingerprint: { seed: "s", primaryKey: "id" } }));
    const again = await collect(qdrantSource.readFingerprinted!(sourceConfig(), { query: "", batchSize: 100, fingerprint: { seed: "s", primaryKey: "id" } }));
    expect(first[0].fingerprints).toEqual(again[0].fingerprints);
    expect(first[0].keyValues.slice(0, 2)).toEqual(["1", "2"]);
    q.collections.get("docs")!.points.get("2")!.payload.title = "changed";
    const changed = await collect(qdrantSource.readFingerprinted!(sourceConfig(), { query: "", batchSize: 100, fingerprint: { seed: "s", primaryKey: "id" } }));
    expect(changed[0].fingerprints.filter((f, i) => f !== first[0].fingerprints[i])).toHaveLength(1);
  });

  it("finds the nearest points with filters, and previews a query", async () => {
    const query = JSON.stringify({ vector: [3, 1, 0, 0.5], limit: 3, filters: [{ field: "rank", operator: "lte", value: 20 }, { field: "title", operator: "neq", value: "Doc 3" }] });
    const [rows] = await collect(qdrantSource.read(sourceConfig(), { query, batchSize: 100 }));
    expect(rows).toHaveLength(3);
    expect(rows.map((r) => r.id)).not.toContain("3");
    expect(rows[0].score).toBeGreaterThan(0.9);
    expect(parseBody(q.requests[0])).toMatchObject({ filter: { must: [{ key: "rank", range: { lte: 20 } }], must_not: [{ key: "title", match: { value: "Doc 3" } }] } });
    const preview = await qdrantSource.query!(sourceConfig(), "{}", 2);
    expect(preview.rows).toHaveLength(2);
    expect(preview.columns).toEqual([{ name: "id", type: "string" }, { name: "payload", type: "object" }, { name: "vector", type: "array" }, { name: "score", type: "null" }]);
    expect(() => qdrantSource.checkQuery!("SELECT 1")).toThrow(/must be a JSON object/);
  });

  it("waits out a 429's Retry-After, and never shows the key", async () => {
    q.window.max = 1;
    const started = Date.now();
    const pages = await collect(qdrantSource.read(sourceConfig(), { query: "{}", batchSize: 20 }));
    expect(pages.flat()).toHaveLength(25);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(q.requests.length).toBeGreaterThan(2);
    // A check, where a person waits, tries twice; a sync's read above tried until the window opened.
    q.window.max = 0;
    q.window.reset();
    expect(await qdrantSource.check(sourceConfig())).toEqual({ ok: false, details: "Qdrant answered HTTP 429: Too many requests: rate limit exceeded (after 2 attempts)" });
    q.window.max = 100_000;
    const bad = await qdrantSource.check(sourceConfig({ api_key: "wrong-key-123456" }));
    expect(bad.details).not.toContain("wrong-key-123456");
    expect(maskSecrets(sourceConfig(), getDefinition("Qdrant", "source")!).api_key).toBe(SECRET_MASK);
  });
});

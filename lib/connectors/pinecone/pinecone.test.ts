// Pinecone destination and source against the Pinecone API emulator (tests/emulators/pinecone.ts) on
// 127.0.0.1: the control plane's describe index gives the emulator itself as the index's host.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Row, Stream } from "../types";
import { JsonNumber } from "../shared/values";
import { getDefinition, maskSecrets, mergeMaskedSecrets, SECRET_MASK, SecretTargetChangedError } from "../registry";
import { loadThrough, parseBody, records } from "@/tests/emulators/common";
import { startPineconeEmulator } from "@/tests/emulators/pinecone";
import { metadataLines, pineconeDestination } from "./destination";
import { pineconeSource } from "./source";

const KEY = "pcsk_emulator_0123456789abcdef";
let p: Awaited<ReturnType<typeof startPineconeEmulator>>;
let stream: Stream;
const config = (overrides: Row = {}): Row => ({ api_key: KEY, region: "us-east-1", index_name: "docs", control_plane_url: p.url, timeout: 10, ...overrides });
const sourceConfig = (overrides: Row = {}): Row => config({ namespace: "__default__", ...overrides });
const vec = (i: number): Row => ({ id: `doc-${String(i).padStart(3, "0")}`, value: [i, 1, 0], meta_data: { title: `Doc ${i}` }, rank: i });
const upserts = () => p.requests.filter((r) => r.url === "/vectors/upsert");

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

beforeAll(async () => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  p = await startPineconeEmulator({ apiKey: KEY, indexName: "docs", dimension: 3 });
  p.space("products").set("x", { id: "x", values: [1, 1, 1] });
  stream = (await pineconeDestination.discover(config())).streams.find((s) => s.name === "__default__")!;
});
afterAll(() => p.close());
beforeEach(() => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  p.requests.length = 0;
  p.window.max = 100_000;
  p.window.reset();
  p.space("").clear();
});

describe("Pinecone destination", () => {
  it("checks the index through the control plane and its host, saying its dimension", async () => {
    expect(await pineconeDestination.check(config({ index_name: "docs" }))).toEqual({ ok: true, details: 'Connected to Pinecone index "docs" (3 dimensions, 1 vector).' });
    expect(p.requests.map((r) => `${r.method} ${r.url}`)).toContain("POST /describe_index_stats");
    expect(p.requests.at(-1)!.headers).toMatchObject({ "api-key": KEY, "x-pinecone-api-version": "2025-01" });
    expect(await pineconeDestination.check(config({ index_name: "missing" }))).toEqual({ ok: false, details: "Pinecone answered HTTP 404: Resource missing not found" });
    expect(await pineconeDestination.check(config({ api_key: "wrong-key-abcdef", index_name: "docs" }))).toEqual({ ok: false, details: "Pinecone answered HTTP 401: Invalid API Key" });
    expect((await pineconeDestination.check(config({ region: "eu-west-1" }))).details).toContain("Note: the index runs in us-east-1, not eu-west-1");
  });

  it("discovers a stream per namespace (the default as __default__) with the index's dimension", async () => {
    const catalog = await pineconeDestination.discover(config());
    expect(catalog.streams.map((s) => s.name)).toEqual(["__default__", "products"]);
    expect(stream).toMatchObject({ primary_key: ["id"], batch_size: 1000 });
    expect(stream.json_schema).toMatchObject({ properties: { value: { minItems: 3, maxItems: 3 } } });
    expect(pineconeDestination.definition.writeModes).toEqual(["upsert", "mirror"]);
  });

  it("upserts vectors in one request checked against upsertedCount; a bad vector or metadata fails alone", async () => {
    const batch = records(5, vec);
    batch[1].payload.value = [1, 2];
    batch[2].payload.meta_data = { nested: { no: true } };
    batch[3].payload.meta_data = "Title: Fourth\nAuthor: Ann\nsecond line";
    const outcomes = await pineconeDestination.write(config(), batch, { stream, batch: true });
    expect(outcomes.map((o) => [o.key, o.ok])).toEqual([["2", false], ["3", false], ["1", true], ["4", true], ["5", true]]);
    expect(outcomes[0].error).toBe('Column "value" holds a vector of 2 numbers; the index takes vectors of exactly 3.');
    expect(outcomes[1].error).toBe('Metadata field "nested" holds {"no":true}; Pinecone metadata takes text, numbers, booleans and lists of text.');
    expect(upserts()).toHaveLength(1);
    const sent = parseBody(upserts()[0]) as { vectors: Row[]; namespace: string };
    expect(sent.namespace).toBe("");
    expect(sent.vectors[0]).toEqual({ id: "doc-001", values: [1, 1, 0], metadata: { title: "Doc 1", rank: 1 } });
    expect(sent.vectors[1]).toMatchObject({ metadata: { Title: "Fourth", Author: "Ann\nsecond line", rank: 4 } });
    expect(p.space("").size).toBe(3);
    expect(metadataLines("Name: A\nCity: Lyon")).toEqual({ Name: "A", City: "Lyon" });
    // A number a JavaScript number would not hold exactly is metadata too, sent as written.
    p.requests.length = 0;
    const [exact] = await pineconeDestination.write(config(), [{ key: "n", action: "upsert", payload: { id: "n", value: [1, 2, 3], meta_data: { big: new JsonNumber("12345678901234567890") } } }], { stream, batch: true });
    expect(exact.ok).toBe(true);
    expect(upserts()[0].body).toContain('"metadata":{"big":12345678901234567890}');
  });

  it("isolates the vector Pinecone refuses in a request it refuses whole (the engine bisects), and splits at 1,000", async () => {
    const blind: Stream = { ...stream, json_schema: { type: "object", properties: { id: {}, value: {}, meta_data: {} } } };
    const batch = records(6, vec);
    batch[4].payload.value = [1];
    const { outcomes } = await loadThrough(pineconeDestination, config(), blind, batch);
    expect(outcomes.filter((o) => !o.ok).map((o) => o.key)).toEqual(["5"]);
    expect(outcomes.find((o) => o.key === "5")?.error).toBe("Pinecone answered HTTP 400: Vector dimension 1 does not match the dimension of the index 3");
    p.requests.length = 0;
    const many = await pineconeDestination.write(config(), records(2500, vec), { stream: { ...stream, batch_size: 5000 }, batch: true });
    expect(many.every((o) => o.ok)).toBe(true);
    expect(upserts().map((r) => (parseBody(r) as { vectors: unknown[] }).vectors.length)).toEqual([1000, 1000, 500]);
  });

  it("deletes by id in the stream's namespace for mirror mode", async () => {
    const products = (await pineconeDestination.discover(config())).streams.find((s) => s.name === "products")!;
    await pineconeDestination.write(config(), records(3, vec), { stream: products, batch: true });
    const outcomes = await pineconeDestination.write(config(), records(2, vec, "delete"), { stream: products, batch: true });
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(parseBody(p.requests.at(-1)!)).toEqual({ ids: ["doc-001", "doc-002"], namespace: "products" });
    expect([...p.space("products").keys()].sort()).toEqual(["doc-003", "x"]);
  });

  it("honours Retry-After on a 429 through the engine", async () => {
    await pineconeDestination.check(config());
    p.window.max = 0;
    const [throttled] = await pineconeDestination.write(config(), records(1, vec), { stream, batch: true });
    expect(throttled).toMatchObject({ ok: false, status: 429, retryable: true, retryAfterSeconds: 1 });
    p.window.reset();
    p.window.max = 1;
    await pineconeDestination.check(config());
    const { outcomes } = await loadThrough(pineconeDestination, config(), stream, records(2, vec), { maxAttempts: 2 });
    expect(outcomes.every((o) => o.ok)).toBe(true);
  });

  it("masks the key, keeps it off a new control plane, and obeys the outbound policy", async () => {
    const definition = getDefinition("PineconeDB", "destination")!;
    expect(definition.secretTargetFields).toEqual(["control_plane_url"]);
    expect(maskSecrets(config(), definition).api_key).toBe(SECRET_MASK);
    expect(() => mergeMaskedSecrets({ ...config(), api_key: SECRET_MASK, control_plane_url: "https://elsewhere.example" }, config(), definition)).toThrow(SecretTargetChangedError);
    const outcomes = await pineconeDestination.write(config({ api_key: "pcsk_wrong_secret_value" }), records(1, vec), { stream, batch: true });
    expect(JSON.stringify(outcomes)).not.toContain("pcsk_wrong_secret_value");
    process.env.OUTBOUND_ALLOW_PRIVATE = "";
    p.requests.length = 0;
    const blockedCheck = await pineconeDestination.check(config({ control_plane_url: `${p.url}/other` }));
    expect(blockedCheck).toMatchObject({ ok: false, details: expect.stringMatching(/private, loopback or link-local/) });
    expect(p.requests).toHaveLength(0);
  });
});

describe("Pinecone source", () => {
  beforeEach(async () => {
    await pineconeDestination.write(config(), records(250, vec), { stream, batch: true });
    p.requests.length = 0;
  });

  it("checks the namespace and discovers the vector columns", async () => {
    expect(await pineconeSource.check(sourceConfig())).toEqual({ ok: true, details: 'Connected to Pinecone index "docs" (3 dimensions): namespace __default__ holds 250 vectors.' });
    expect(await pineconeSource.check(sourceConfig({ namespace: "products" }))).toMatchObject({ ok: true, details: expect.stringContaining("namespace products holds 2 vectors.") });
    const catalog = await pineconeSource.discover(sourceConfig());
    expect(Object.keys(catalog.streams[0].json_schema.properties as Row)).toEqual(["id", "values", "metadata", "score"]);
  });

  it("lists every vector page by page (list, then fetch) and fingerprints the rows", async () => {
    const pages = await collect(pineconeSource.read(sourceConfig(), { query: "{}", batchSize: 1000 }));
    expect(pages.map((x) => x.length)).toEqual([100, 100, 50]);
    expect(pages[0][0]).toEqual({ id: "doc-001", values: [1, 1, 0], metadata: { title: "Doc 1", rank: 1 }, score: null });
    expect(p.requests.map((r) => r.url.split("?")[0])).toEqual(["/vectors/list", "/vectors/fetch", "/vectors/list", "/vectors/fetch", "/vectors/list", "/vectors/fetch"]);
    const fp = () => collect(pineconeSource.readFingerprinted!(sourceConfig(), { query: "", batchSize: 100, fingerprint: { seed: "s", primaryKey: "id" } }));
    const first = await fp();
    expect(await fp()).toSatisfy((again: typeof first) => again.every((b, i) => b.fingerprints.join() === first[i].fingerprints.join()));
    p.space("").get("doc-002")!.metadata = { title: "changed" };
    const changed = await fp();
    expect(changed[0].fingerprints.filter((f, i) => f !== first[0].fingerprints[i])).toHaveLength(1);
    expect(changed[0].keyValues[1]).toBe("doc-002");
  });

  it("finds the nearest vectors with filters, and previews a query", async () => {
    const query = JSON.stringify({ vector: [10, 1, 0], limit: 3, filters: [{ field: "rank", operator: "lte", value: 5 }, { field: "title", operator: "neq", value: "Doc 5" }] });
    const [rows] = await collect(pineconeSource.read(sourceConfig(), { query, batchSize: 100 }));
    expect(rows.map((r) => r.id)).toEqual(["doc-004", "doc-003", "doc-002"]);
    expect(parseBody(p.requests.at(-1)!)).toMatchObject({ topK: 3, includeValues: true, includeMetadata: true, filter: { $and: [{ rank: { $lte: 5 } }, { title: { $ne: "Doc 5" } }] } });
    const preview = await pineconeSource.query!(sourceConfig(), "{}", 5);
    expect(preview.rows).toHaveLength(5);
    expect(preview.columns.map((c) => c.name)).toEqual(["id", "values", "metadata", "score"]);
    await expect(pineconeSource.query!(sourceConfig(), '{"filters": [{"field": "rank", "value": 1}]}', 5)).rejects.toThrow("Pinecone lists vectors without filtering");
    expect(() => pineconeSource.checkQuery!("SELECT 1 AS one")).toThrow(/must be a JSON object/);
  });

  it("waits out a 429's Retry-After, and never shows the key", async () => {
    await pineconeSource.check(sourceConfig());
    p.window.max = 2;
    p.window.reset();
    const pages = await collect(pineconeSource.read(sourceConfig(), { query: "{}", batchSize: 100 }));
    expect(pages.flat()).toHaveLength(250);
    expect(p.requests.filter((r) => r.url.startsWith("/vectors/list")).length).toBeGreaterThan(3);
    p.window.max = 100_000;
    const bad = await pineconeSource.check(sourceConfig({ api_key: "pcsk_wrong_key_987654" }));
    expect(bad).toEqual({ ok: false, details: "Pinecone answered HTTP 401: Invalid API Key" });
    expect(maskSecrets(sourceConfig(), getDefinition("PineconeDB", "source")!).api_key).toBe(SECRET_MASK);
  });
});

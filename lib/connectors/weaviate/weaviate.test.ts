// Weaviate destination against the Weaviate REST emulator (tests/emulators/weaviate.ts) on 127.0.0.1.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Row, Stream } from "../types";
import { getDefinition, maskSecrets, mergeMaskedSecrets, SECRET_MASK, SecretTargetChangedError } from "../registry";
import { loadThrough, parseBody, records } from "@/tests/emulators/common";
import { startWeaviateEmulator } from "@/tests/emulators/weaviate";
import { objectId, weaviateDestination } from "./destination";

const KEY = "weaviate-emulator-key-0123456789";
let w: Awaited<ReturnType<typeof startWeaviateEmulator>>;
let stream: Stream;
const config = (overrides: Row = {}): Row => ({ api_url: w.url, api_key: KEY, timeout: 10, ...overrides });
const article = (i: number): Row => ({ id: `article-${i}`, vector: [i, 0, 1], properties: { title: `Article ${i}` }, words: String(100 * i) });
const batches = () => w.requests.filter((r) => r.method === "POST");

beforeAll(async () => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  w = await startWeaviateEmulator({ apiKey: KEY });
  w.addClass("Article", { title: "text", words: "int" });
  w.addClass("Empty", { name: "text" });
  // One stored object gives discovery the class's vector length.
  w.classes.get("Article")!.objects.set("seed", { class: "Article", id: "seed", vector: [0, 0, 1], properties: {} });
  stream = (await weaviateDestination.discover(config())).streams.find((s) => s.name === "Article")!;
});
afterAll(() => w.close());
beforeEach(() => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  w.requests.length = 0;
  w.window.max = 100_000;
  w.window.reset();
  w.classes.get("Empty")!.objects.clear();
});

describe("Weaviate destination", () => {
  it("checks the key (Bearer) and discovers each collection with its vector length and property types", async () => {
    expect(await weaviateDestination.check(config())).toEqual({ ok: true, details: "Connected to Weaviate: 2 collections." });
    expect(w.requests[0].headers.authorization).toBe(`Bearer ${KEY}`);
    expect(await weaviateDestination.check(config({ api_key: "wrong" }))).toEqual({ ok: false, details: "Weaviate rejected the credentials. Weaviate answered HTTP 401: unauthorized: invalid api key" });
    expect(stream.json_schema).toMatchObject({ properties: { vector: { minItems: 3, maxItems: 3 }, words: { type: ["integer", "null"] } } });
    const empty = (await weaviateDestination.discover(config())).streams.find((s) => s.name === "Empty")!;
    expect((empty.json_schema.properties as Row).vector).not.toHaveProperty("minItems");
    expect(stream.batch_size).toBe(100);
  });

  it("writes objects in one batch, reading each object's result; a wrong-length vector fails before sending", async () => {
    const batch = records(4, article);
    batch[1].payload.vector = [1, 2];
    batch[2].payload.words = "12.5";
    const outcomes = await weaviateDestination.write(config(), batch, { stream, batch: true });
    expect(outcomes.map((o) => [o.key, o.ok])).toEqual([["2", false], ["1", true], ["3", false], ["4", true]]);
    expect(outcomes[0].error).toBe('Column "vector" holds a vector of 2 numbers; the index takes vectors of exactly 3.');
    expect(outcomes[2].error).toBe("Weaviate refused the record: invalid integer property 'words' on class 'Article': requires an integer, the given value is '12.5'");
    expect(batches()).toHaveLength(1);
    const sent = (parseBody(batches()[0]) as { objects: Row[] }).objects;
    expect(sent[0]).toEqual({ class: "Article", id: objectId("article-1"), vector: [1, 0, 1], properties: { title: "Article 1", words: 100 } });
    expect(objectId("article-1")).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(objectId("5C56C793-69F3-4FBF-87E6-C4BF54C28C26")).toBe("5c56c793-69f3-4fbf-87e6-c4bf54c28c26");
  });

  it("finds a vector of another length in a new collection from Weaviate's own answer", async () => {
    const empty = (await weaviateDestination.discover(config())).streams.find((s) => s.name === "Empty")!;
    const outcomes = await weaviateDestination.write(config(), [
      { key: "a", action: "upsert", payload: { id: 1, vector: [1, 2, 3, 4], name: "a" } },
      { key: "b", action: "upsert", payload: { id: 2, vector: [1, 2], name: "b" } },
    ], { stream: empty, batch: true });
    expect(outcomes.map((o) => o.ok)).toEqual([true, false]);
    expect(outcomes[1].error).toContain("new node has a vector with length 2. Existing nodes have vectors with length 4");
  });

  it("deletes by id for mirror mode (an id already gone counts as deleted), and splits batches at 100", async () => {
    await weaviateDestination.write(config(), records(250, article), { stream: { ...stream, batch_size: 1000 }, batch: true });
    expect(batches().map((r) => (parseBody(r) as { objects: unknown[] }).objects.length)).toEqual([100, 100, 50]);
    w.requests.length = 0;
    const del = records(2, article, "delete");
    del.push({ key: "gone", action: "delete", payload: { id: "never-written" } });
    const outcomes = await weaviateDestination.write(config(), del, { stream, batch: true });
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(w.requests).toHaveLength(1);
    expect(parseBody(w.requests[0])).toMatchObject({ match: { class: "Article", where: { operator: "ContainsAny", valueTextArray: [objectId("article-1"), objectId("article-2"), objectId("never-written")] } } });
    expect(w.classes.get("Article")!.objects.has(objectId("article-1"))).toBe(false);
    expect(w.classes.get("Article")!.objects.has(objectId("article-3"))).toBe(true);
  });

  it("honours Retry-After on a 429 through the engine", async () => {
    w.window.max = 0;
    const [throttled] = await weaviateDestination.write(config(), records(1, article), { stream, batch: true });
    expect(throttled).toMatchObject({ ok: false, status: 429, retryable: true, retryAfterSeconds: 1 });
    w.window.reset();
    w.window.max = 1;
    await weaviateDestination.check(config());
    const { outcomes } = await loadThrough(weaviateDestination, config(), stream, records(2, article), { maxAttempts: 2 });
    expect(outcomes.every((o) => o.ok)).toBe(true);
  });

  it("masks the key, keeps it off a new URL, and obeys the outbound policy", async () => {
    const definition = getDefinition("Weaviate", "destination")!;
    expect(definition.secretTargetFields).toEqual(["api_url"]);
    expect(maskSecrets(config(), definition).api_key).toBe(SECRET_MASK);
    expect(() => mergeMaskedSecrets({ ...config(), api_key: SECRET_MASK, api_url: "https://elsewhere.example" }, config(), definition)).toThrow(SecretTargetChangedError);
    const outcomes = await weaviateDestination.write(config(), records(2, article), { stream, batch: true });
    expect(JSON.stringify(outcomes)).not.toContain(KEY);
    process.env.OUTBOUND_ALLOW_PRIVATE = "";
    w.requests.length = 0;
    const [blocked] = await weaviateDestination.write(config(), records(1, article), { stream, batch: true });
    expect(blocked).toMatchObject({ ok: false, retryable: false, error: expect.stringMatching(/private, loopback or link-local/) });
    expect(w.requests).toHaveLength(0);
  });
});

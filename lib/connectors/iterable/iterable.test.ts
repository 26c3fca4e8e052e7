// Iterable destination against the Iterable API emulator (tests/emulators/iterable.ts) on 127.0.0.1.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Row, Stream } from "../types";
import { getDefinition, maskSecrets, mergeMaskedSecrets, SECRET_MASK, SecretTargetChangedError } from "../registry";
import { loadThrough, parseBody, records } from "@/tests/emulators/common";
import { startIterableEmulator } from "@/tests/emulators/iterable";
import { iterableDestination } from "./destination";

const KEY = "iterable-server-key-abcdef0123456789";
let it8: Awaited<ReturnType<typeof startIterableEmulator>>;
let stream: Stream;
const config = (overrides: Row = {}): Row => ({ api_key: KEY, base_url: it8.url, timeout: 10, ...overrides });
const person = (i: number): Row => ({ email: `user${i}@example.com`, firstName: `User ${i}`, age: 20 + i });
const bulkRequests = () => it8.requests.filter((r) => r.url === "/api/users/bulkUpdate");

beforeAll(async () => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  it8 = await startIterableEmulator({ apiKey: KEY });
  [stream] = (await iterableDestination.discover(config())).streams;
});
afterAll(() => it8.close());
beforeEach(() => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  it8.requests.length = 0;
  it8.users.clear();
  it8.window.max = 10_000;
  it8.window.reset();
});

describe("Iterable destination", () => {
  it("checks the API key, sent in the Api-Key header", async () => {
    expect(await iterableDestination.check(config())).toEqual({ ok: true, details: "Connected to Iterable; the API key can read the project's user fields." });
    expect(it8.requests[0].headers["api-key"]).toBe(KEY);
    const bad = await iterableDestination.check(config({ api_key: "wrong-key-value" }));
    expect(bad).toEqual({ ok: false, details: "Iterable rejected the credentials. Iterable answered HTTP 401: Invalid API key (BadApiKey)" });
  });

  it("discovers the project's top-level user fields with their types", async () => {
    expect(stream).toMatchObject({ name: "users", primary_key: ["email"], batch_size: 1000 });
    expect((stream.json_schema as { properties: Row }).properties).toEqual({
      email: { type: "string", title: "email" },
      userId: { type: ["string", "null"], title: "userId" },
      firstName: { type: ["string", "null"], title: "firstName" },
      age: { type: ["integer", "null"], title: "age" },
      vip: { type: ["boolean", "null"], title: "vip" },
    });
    expect(iterableDestination.definition.writeModes).toEqual(["upsert"]);
  });

  it("bulk-updates users; each user Iterable lists as failed fails alone, with the reason", async () => {
    const batch = records(4, person);
    batch[1].payload.email = "not-an-email";
    batch[3].payload.age = "forty";
    const outcomes = await iterableDestination.write(config(), batch, { stream, batch: true });
    expect(outcomes.map((o) => [o.key, o.ok])).toEqual([["1", true], ["2", false], ["3", true], ["4", false]]);
    expect(outcomes[1].error).toBe("Iterable refused the record: the email address is not valid (failedUpdates.invalidEmails)");
    expect(outcomes[3].error).toBe("Iterable refused the record: a data field's type differs from the type the project has for it (failedUpdates.invalidDataEmails)");
    expect([...it8.users.keys()]).toEqual(["user1@example.com", "user3@example.com"]);
    expect(parseBody(bulkRequests()[0])).toMatchObject({ users: [{ email: "user1@example.com", dataFields: { firstName: "User 1", age: 21 } }, expect.any(Object), expect.any(Object), expect.any(Object)] });
  });

  it("identifies users by userId with preferUserId when configured", async () => {
    const outcomes = await iterableDestination.write(config({ identifier: "userId" }), records(1, (i) => ({ userId: `id-${i}`, vip: true })), { stream, batch: true });
    expect(outcomes[0].ok).toBe(true);
    expect(parseBody(bulkRequests()[0])).toEqual({ users: [{ userId: "id-1", dataFields: { vip: true }, preferUserId: true }] });
  });

  it("keeps each request under 4 MB and 1,000 users, which is what Iterable takes", async () => {
    const big = (i: number): Row => ({ ...person(i), firstName: "x".repeat(6000) });
    const outcomes = await iterableDestination.write(config(), records(1200, big), { stream: { ...stream, batch_size: 2000 }, batch: true });
    expect(outcomes.every((o) => o.ok)).toBe(true);
    const sizes = bulkRequests().map((r) => Buffer.byteLength(r.body));
    expect(sizes.length).toBeGreaterThan(1);
    for (const size of sizes) expect(size).toBeLessThanOrEqual(4 * 1024 * 1024);
    expect(bulkRequests().reduce((n, r) => n + (parseBody(r) as { users: unknown[] }).users.length, 0)).toBe(1200);
    it8.requests.length = 0;
    await loadThrough(iterableDestination, config(), stream, records(2500, person));
    expect(bulkRequests().map((r) => (parseBody(r) as { users: unknown[] }).users.length)).toEqual([1000, 1000, 500]);
    const tooBig = await fetch(`${it8.url}/api/users/bulkUpdate`, {
      method: "POST",
      headers: { "api-key": KEY, "content-type": "application/json" },
      body: JSON.stringify({ users: records(800, big).map((r) => ({ email: r.payload.email, dataFields: r.payload })) }),
    });
    expect(tooBig.status).toBe(413);
  });

  it("retries a 429 after the one-second window", async () => {
    it8.window.max = 1;
    await iterableDestination.write(config(), records(1, person), { stream, batch: true });
    const [throttled] = await iterableDestination.write(config(), records(1, person), { stream, batch: true });
    expect(throttled).toMatchObject({ ok: false, status: 429, retryable: true, retryAfterSeconds: 1, error: expect.stringContaining("(RateLimitExceeded)") });
    const { outcomes } = await loadThrough(iterableDestination, config(), stream, records(1, person));
    expect(outcomes[0].ok).toBe(true);
  });

  it("masks the key everywhere and keeps it off a new base URL", async () => {
    const definition = getDefinition("Iterable", "destination")!;
    expect(maskSecrets(config(), definition).api_key).toBe(SECRET_MASK);
    const outcomes = await iterableDestination.write(config(), records(2, person), { stream, batch: true });
    expect(JSON.stringify(outcomes)).not.toContain(KEY);
    expect(() => mergeMaskedSecrets({ ...config(), api_key: SECRET_MASK, base_url: "https://api.eu.iterable.com" }, config(), definition)).toThrow(SecretTargetChangedError);
  });

  it("obeys the outbound network policy", async () => {
    process.env.OUTBOUND_ALLOW_PRIVATE = "";
    const [outcome] = await iterableDestination.write(config(), records(1, person), { stream, batch: true });
    expect(outcome).toMatchObject({ ok: false, retryable: false, error: expect.stringMatching(/private, loopback or link-local/) });
    expect(it8.requests).toHaveLength(0);
  });
});

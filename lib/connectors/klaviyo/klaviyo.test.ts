// Klaviyo destination against the Klaviyo API emulator (tests/emulators/klaviyo.ts) on 127.0.0.1.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Row, Stream } from "../types";
import { getDefinition, maskSecrets, mergeMaskedSecrets, SECRET_MASK, SecretTargetChangedError } from "../registry";
import { loadThrough, parseBody, records } from "@/tests/emulators/common";
import { startKlaviyoEmulator } from "@/tests/emulators/klaviyo";
import { klaviyoDestination } from "./destination";

const KEY = "pk_emulator_0123456789abcdef";
let kl: Awaited<ReturnType<typeof startKlaviyoEmulator>>;
let stream: Stream;
const config = (overrides: Row = {}): Row => ({ api_key: KEY, base_url: kl.url, timeout: 10, job_timeout: 10, ...overrides });
const person = (i: number): Row => ({ email: `user${i}@example.com`, first_name: `User ${i}`, city: "Lyon", plan: "pro", nickname: null });
const jobPosts = () => kl.requests.filter((r) => r.method === "POST");
const profileCounts = () => jobPosts().map((r) => (parseBody(r) as { data: { attributes: { profiles: { data: unknown[] } } } }).data.attributes.profiles.data.length);

beforeAll(async () => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  kl = await startKlaviyoEmulator({ apiKey: KEY });
  [stream] = (await klaviyoDestination.discover(config())).streams;
});
afterAll(() => kl.close());
beforeEach(() => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  kl.requests.length = 0;
  kl.profiles.clear();
  kl.window.max = 10_000;
  kl.window.reset();
  kl.state.pollsToComplete = 1;
});

describe("Klaviyo destination", () => {
  it("checks the private key, sent as Klaviyo-API-Key with the revision header", async () => {
    expect(await klaviyoDestination.check(config())).toEqual({ ok: true, details: 'Connected to Klaviyo account "Emulated Co".' });
    expect(kl.requests[0].headers).toMatchObject({ authorization: `Klaviyo-API-Key ${KEY}`, revision: "2024-10-15" });
    const bad = await klaviyoDestination.check(config({ api_key: "pk_wrong_key" }));
    expect(bad).toEqual({ ok: false, details: "Klaviyo rejected the credentials. Klaviyo answered HTTP 401: Authentication credentials were not provided. Missing or invalid private key." });
  });

  it("discovers the profile's standard attributes; any other field is a custom property", async () => {
    expect(stream).toMatchObject({ name: "profiles", batch_size: 10_000, primary_key: ["email"] });
    expect(stream.json_schema).toMatchObject({ additionalProperties: true, properties: { email: expect.any(Object), city: expect.any(Object) } });
    const catalog = await klaviyoDestination.discover(config());
    expect(catalog).toMatchObject({ request_rate_limit: 150, request_rate_limit_unit: "minute" });
  });

  it("imports a batch as one job, follows it, and fails only the profile its import errors point at", async () => {
    kl.state.pollsToComplete = 2;
    const batch = records(4, person);
    batch[2].payload.email = "broken@";
    const outcomes = await klaviyoDestination.write(config({ list_id: "LIST1" }), batch, { stream, batch: true });
    expect(outcomes.map((o) => [o.key, o.ok])).toEqual([["1", true], ["2", true], ["3", false], ["4", true]]);
    expect(outcomes[2]).toMatchObject({ status: 202, retryable: false, error: "Klaviyo refused the record: Invalid input. Invalid email address: broken@" });
    expect(kl.requests.map((r) => `${r.method} ${r.url.split("?")[0]}`)).toEqual([
      "POST /api/profile-bulk-import-jobs",
      "GET /api/profile-bulk-import-jobs/job1",
      "GET /api/profile-bulk-import-jobs/job1",
      "GET /api/profile-bulk-import-jobs/job1/import-errors",
    ]);
    const sent = parseBody(jobPosts()[0]) as { data: { attributes: { profiles: { data: Row[] } }; relationships: Row } };
    // Standard attributes, location, custom properties; nulls left out (the import cannot clear a field).
    expect(sent.data.attributes.profiles.data[0]).toEqual({
      type: "profile",
      attributes: { email: "user1@example.com", first_name: "User 1", location: { city: "Lyon" }, properties: { plan: "pro" } },
    });
    expect(sent.data.relationships).toEqual({ lists: { data: [{ type: "list", id: "LIST1" }] } });
  });

  it("counts the profiles of a job still running when the wait ends as accepted, saying so in their logs", async () => {
    kl.state.pollsToComplete = 1000;
    const outcomes = await klaviyoDestination.write(config({ job_timeout: 5 }), records(2, person), { stream, batch: true });
    expect(outcomes.map((o) => o.ok)).toEqual([true, true]);
    expect(outcomes[0].log?.response.body).toEqual({ job_id: expect.any(String), status: "processing", note: "still running when the wait ended: per-profile errors not checked" });
    expect(kl.requests.filter((r) => r.url.includes("import-errors"))).toHaveLength(0);
  });

  it("fails a job's records as retryable when the job cannot be followed (the import is an upsert: sending it again is safe)", async () => {
    kl.window.max = 1;
    const outcomes = await klaviyoDestination.write(config(), records(2, person), { stream, batch: true });
    expect(outcomes.map((o) => [o.ok, o.retryable])).toEqual([
      [false, true],
      [false, true],
    ]);
    expect(outcomes[0].error).toContain("Request was throttled.");
  });

  it("reads every page of import errors", async () => {
    const batch = records(130, (i) => ({ email: i % 2 === 0 ? `bad${i}@` : `ok${i}@example.com` }));
    const outcomes = await klaviyoDestination.write(config(), batch, { stream, batch: true });
    expect(outcomes.filter((o) => !o.ok).map((o) => o.key)).toEqual(batch.filter((_, i) => i % 2 === 1).map((r) => r.key));
    expect(kl.requests.filter((r) => r.url.includes("import-errors"))).toHaveLength(1);
    const many = records(260, (i) => ({ email: i % 2 === 0 ? `bad${i}@` : `ok${i}@example.com` }));
    kl.requests.length = 0;
    const more = await klaviyoDestination.write(config(), many, { stream, batch: true });
    expect(more.filter((o) => !o.ok)).toHaveLength(130);
    expect(kl.requests.filter((r) => r.url.includes("import-errors"))).toHaveLength(2);
  });

  it("fails a profile without an identifier alone, unsent; keeps jobs within 10,000 profiles and 5 MB", async () => {
    const outcomes = await klaviyoDestination.write(config(), [...records(2, person), { key: "x", action: "upsert", payload: { first_name: "Nobody" } }], { stream, batch: true });
    expect(outcomes.find((o) => o.key === "x")).toMatchObject({ ok: false, error: expect.stringContaining("no email, phone_number or external_id") });
    expect(profileCounts()).toEqual([2]);
    kl.requests.length = 0;
    const big = (i: number): Row => ({ email: `u${i}@example.com`, bio: "x".repeat(3000) });
    const results = await klaviyoDestination.write(config(), records(2500, big), { stream: { ...stream, batch_size: 20_000 }, batch: true });
    expect(results.every((o) => o.ok)).toBe(true);
    for (const post of jobPosts()) expect(Buffer.byteLength(post.body)).toBeLessThanOrEqual(5 * 1024 * 1024);
    expect(profileCounts().reduce((a, b) => a + b, 0)).toBe(2500);
    expect(profileCounts().length).toBeGreaterThan(1);
    const tooMany = await fetch(`${kl.url}/api/profile-bulk-import-jobs`, {
      method: "POST",
      headers: { authorization: `Klaviyo-API-Key ${KEY}`, revision: "2024-10-15", "content-type": "application/vnd.api+json" },
      body: JSON.stringify({ data: { type: "profile-bulk-import-job", attributes: { profiles: { data: Array.from({ length: 10_001 }, (_, i) => ({ type: "profile", attributes: { email: `a${i}@b.co` } })) } } } }),
    });
    expect(tooMany.status).toBe(400);
  });

  it("honours Retry-After on a 429", async () => {
    kl.window.max = 1;
    await klaviyoDestination.check(config());
    const [throttled] = await klaviyoDestination.write(config(), records(1, person), { stream, batch: true });
    expect(throttled).toMatchObject({ ok: false, status: 429, retryable: true, retryAfterSeconds: 1, error: expect.stringContaining("Request was throttled.") });
    // Through the engine: the window is full, so the job waits for the next one (a retry 1 ms later
    // would be throttled again), where it is created and followed.
    kl.window.reset();
    kl.window.max = 2;
    await klaviyoDestination.check(config());
    await klaviyoDestination.check(config());
    kl.requests.length = 0;
    const { outcomes } = await loadThrough(klaviyoDestination, config(), stream, records(1, person), { maxAttempts: 2 });
    expect(outcomes[0].ok).toBe(true);
  });

  it("masks the key everywhere and keeps it off a new base URL", async () => {
    const definition = getDefinition("Klaviyo", "destination")!;
    expect(maskSecrets(config(), definition).api_key).toBe(SECRET_MASK);
    const outcomes = await klaviyoDestination.write(config(), records(2, person), { stream, batch: true });
    expect(JSON.stringify(outcomes)).not.toContain(KEY);
    expect(() => mergeMaskedSecrets({ ...config(), api_key: SECRET_MASK, base_url: "https://elsewhere.example" }, config(), definition)).toThrow(SecretTargetChangedError);
  });

  it("obeys the outbound network policy", async () => {
    process.env.OUTBOUND_ALLOW_PRIVATE = "";
    const [outcome] = await klaviyoDestination.write(config(), records(1, person), { stream, batch: true });
    expect(outcome).toMatchObject({ ok: false, retryable: false, error: expect.stringMatching(/private, loopback or link-local/) });
    expect(kl.requests).toHaveLength(0);
  });

  it("takes the reference's settings (public_api_key, private_api_key): the private key wins over api_key", async () => {
    const reference = { public_api_key: "AbC123", private_api_key: KEY, base_url: kl.url, timeout: 10 };
    expect(await klaviyoDestination.check(reference)).toMatchObject({ ok: true });
    expect(kl.requests[0].headers.authorization).toBe(`Klaviyo-API-Key ${KEY}`);
    expect(await klaviyoDestination.check({ ...reference, api_key: "pk_wrong_key" })).toMatchObject({ ok: true });
    const outcomes = await klaviyoDestination.write(reference, records(2, person), { stream, batch: true });
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(maskSecrets(reference, klaviyoDestination.definition)).toMatchObject({ public_api_key: SECRET_MASK, private_api_key: SECRET_MASK });
  });
});

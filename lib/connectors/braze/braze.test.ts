// Braze destination against the Braze REST API emulator (tests/emulators/braze.ts) on 127.0.0.1.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Row, Stream } from "../types";
import { getDefinition, maskSecrets, mergeMaskedSecrets, SECRET_MASK, SecretTargetChangedError } from "../registry";
import { loadThrough, parseBody, records } from "@/tests/emulators/common";
import { startBrazeEmulator } from "@/tests/emulators/braze";
import { brazeDestination } from "./destination";

const KEY = "braze-rest-key-0123456789abcdef";
let braze: Awaited<ReturnType<typeof startBrazeEmulator>>;
let stream: Stream;
const config = (overrides: Row = {}): Row => ({ api_key: KEY, base_url: braze.url, timeout: 5, ...overrides });
const user = (i: number): Row => ({ external_id: `u${i}`, first_name: `User ${i}`, plan: "pro" });
const attributeCounts = () => braze.requests.filter((r) => r.url === "/users/track").map((r) => (parseBody(r) as { attributes: unknown[] }).attributes.length);

beforeAll(async () => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  braze = await startBrazeEmulator({ apiKey: KEY });
  [stream] = (await brazeDestination.discover(config())).streams;
});
afterAll(() => braze.close());
beforeEach(() => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  braze.requests.length = 0;
  braze.users.clear();
  braze.window.max = 3000;
  braze.window.windowMs = 3000;
  braze.window.reset();
});

describe("Braze destination", () => {
  it("checks the REST key with an empty track that writes nothing", async () => {
    expect(await brazeDestination.check(config())).toEqual({ ok: true, details: "Connected to Braze; the REST API key was accepted." });
    const bad = await brazeDestination.check(config({ api_key: "wrong-key-value" }));
    expect(bad).toEqual({ ok: false, details: "Braze rejected the credentials. Braze answered HTTP 401: Unknown or missing REST API key." });
    expect(braze.users.size).toBe(0);
  });

  it("discovers the user attributes object, keyed by the identifier, 75 per request", async () => {
    expect(stream).toMatchObject({ name: "users", primary_key: ["external_id"], batch_size: 75, request_method: "POST" });
    expect(stream.json_schema).toMatchObject({ additionalProperties: true, properties: { email: { title: "Email" }, dob: expect.any(Object) } });
    const byEmail = await brazeDestination.discover(config({ identifier: "email" }));
    expect(byEmail.streams[0].primary_key).toEqual(["email"]);
    expect(brazeDestination.definition.writeModes).toEqual(["upsert", "update", "mirror"]);
  });

  it("tracks a batch; the object Braze lists as a non-fatal error fails alone with its text", async () => {
    const batch = records(4, user);
    batch[2].payload.dob = "31/12/1990";
    const outcomes = await brazeDestination.write(config(), batch, { stream, batch: true });
    expect(outcomes.map((o) => [o.key, o.ok])).toEqual([["1", true], ["2", true], ["3", false], ["4", true]]);
    expect(outcomes[2]).toMatchObject({ status: 201, retryable: false, error: "Braze refused the record: 'dob' must be a date in YYYY-MM-DD format, got '31/12/1990'" });
    expect(outcomes[2].log?.response.body).toEqual({ type: expect.any(String), input_array: "attributes", index: 2 });
    expect([...braze.users.keys()]).toEqual(["u1", "u2", "u4"]);
    expect(parseBody(braze.requests[0])).toEqual({ attributes: batch.map((r) => ({ ...r.payload, _update_existing_only: false })) });
  });

  it("sends at most 75 attributes objects a request", async () => {
    const { outcomes } = await loadThrough(brazeDestination, config(), stream, records(160, user));
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(attributeCounts()).toEqual([75, 75, 10]);
    braze.requests.length = 0;
    await brazeDestination.write(config(), records(76, user), { stream: { ...stream, batch_size: 200 }, batch: true });
    expect(attributeCounts()).toEqual([75, 1]);
    const tooMany = await fetch(`${braze.url}/users/track`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ attributes: records(76, user).map((r) => r.payload) }),
    });
    expect(tooMany.status).toBe(400);
  });

  it("updates existing profiles only in update mode, and deletes by external_id 50 at a time in mirror", async () => {
    await brazeDestination.write(config(), records(1, user), { stream, batch: true });
    await brazeDestination.write(config(), records(2, (i) => ({ ...user(i), plan: "free" }), "update"), { stream, batch: true });
    expect([...braze.users.entries()]).toEqual([["u1", { external_id: "u1", first_name: "User 1", plan: "free" }]]);
    await brazeDestination.write(config(), records(60, user), { stream, batch: true });
    const deletes = await brazeDestination.write(config(), records(60, (i) => ({ external_id: `u${i}` }), "delete"), { stream, batch: true });
    expect(deletes.every((o) => o.ok)).toBe(true);
    expect(braze.requests.filter((r) => r.url === "/users/delete").map((r) => (parseBody(r) as { external_ids: string[] }).external_ids.length)).toEqual([50, 10]);
    expect(braze.users.size).toBe(0);
  });

  it("waits for X-RateLimit-Reset on a 429, then succeeds", async () => {
    braze.window.max = 1;
    braze.window.windowMs = 1000;
    await brazeDestination.write(config(), records(1, user), { stream, batch: true });
    const [throttled] = await brazeDestination.write(config(), records(1, user), { stream, batch: true });
    expect(throttled).toMatchObject({ ok: false, status: 429, retryable: true, error: "Braze answered HTTP 429: Too Many Requests" });
    expect(throttled.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    const { outcomes } = await loadThrough(brazeDestination, config(), stream, records(1, user));
    expect(outcomes[0].ok).toBe(true);
  });

  it("masks the key everywhere and keeps it off another instance's URL", async () => {
    const definition = getDefinition("Braze", "destination")!;
    expect(maskSecrets(config(), definition).api_key).toBe(SECRET_MASK);
    const outcomes = await brazeDestination.write(config(), records(2, user), { stream, batch: true });
    expect(JSON.stringify(outcomes)).not.toContain(KEY);
    expect(() => mergeMaskedSecrets({ ...config(), api_key: SECRET_MASK, base_url: "https://rest.fra-01.braze.eu" }, config(), definition)).toThrow(SecretTargetChangedError);
  });

  it("obeys the outbound network policy", async () => {
    process.env.OUTBOUND_ALLOW_PRIVATE = "";
    const [outcome] = await brazeDestination.write(config(), records(1, user), { stream, batch: true });
    expect(outcome).toMatchObject({ ok: false, retryable: false, error: expect.stringMatching(/private, loopback or link-local/) });
    expect(braze.requests).toHaveLength(0);
  });
});

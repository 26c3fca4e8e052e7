// HubSpot destination against the HubSpot CRM v3 emulator (tests/emulators/hubspot.ts) on 127.0.0.1.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Row, Stream } from "../types";
import { getDefinition, maskSecrets, mergeMaskedSecrets, SECRET_MASK, SecretTargetChangedError } from "../registry";
import { loadThrough, parseBody, records } from "@/tests/emulators/common";
import { startHubspotEmulator } from "@/tests/emulators/hubspot";
import { hubspotDestination } from "./destination";

const TOKEN = "pat-na1-emulator-secret-token";
let hub: Awaited<ReturnType<typeof startHubspotEmulator>>;
let stream: Stream;
const config = (overrides: Row = {}): Row => ({ access_token: TOKEN, base_url: hub.url, timeout: 5, ...overrides });
const contact = (i: number) => ({ email: `user${i}@example.com`, firstname: `User ${i}` });
const inputCounts = () => hub.requests.filter((r) => r.method === "POST").map((r) => (parseBody(r) as { inputs: unknown[] }).inputs.length);

beforeAll(async () => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  hub = await startHubspotEmulator({ token: TOKEN, maxPerInterval: 1000, intervalMs: 10_000 });
  [stream] = (await hubspotDestination.discover(config())).streams;
});
afterAll(() => hub.close());
beforeEach(() => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  hub.requests.length = 0;
  hub.contacts.clear();
  hub.window.max = 1000;
  hub.window.windowMs = 10_000;
  hub.window.reset();
});

describe("HubSpot destination", () => {
  it("checks the token: ok, then refused with HubSpot's reason and never the token", async () => {
    expect(await hubspotDestination.check(config())).toEqual({ ok: true, details: "Connected to HubSpot; the token can read contacts." });
    const bad = await hubspotDestination.check(config({ access_token: "pat-na1-wrong" }));
    expect(bad.ok).toBe(false);
    expect(bad.details).toMatch(/^HubSpot rejected the credentials\. HubSpot answered HTTP 401: Authentication credentials not found.*\(INVALID_AUTHENTICATION\)$/);
    expect(bad.details).not.toContain("pat-na1-wrong");
    expect(hub.requests[0].headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it("discovers the writable contact properties, keyed by the unique property, 100 per request at 10 per second", async () => {
    expect(stream).toMatchObject({ name: "contacts", primary_key: ["email"], batch_support: true, batch_size: 100, request_method: "POST", action: "create" });
    expect(Object.keys((stream.json_schema as { properties: Row }).properties)).toEqual(["email", "firstname", "lastname", "lifecyclestage", "num_employees"]);
    const catalog = await hubspotDestination.discover(config());
    expect(catalog).toMatchObject({ request_rate_limit: 10, request_rate_limit_unit: "second", schema_mode: "schema" });
    expect(hubspotDestination.definition.writeModes).toEqual(["upsert", "update", "insert"]);
  });

  it("upserts a batch by email; a bad record fails alone with HubSpot's error text", async () => {
    const batch = records(3, contact);
    batch[1].payload.email = "not-an-email";
    const outcomes = await hubspotDestination.write(config(), batch, { stream, batch: true });
    expect(outcomes.map((o) => [o.key, o.ok])).toEqual([["1", true], ["2", false], ["3", true]]);
    expect(outcomes[1]).toMatchObject({ status: 207, retryable: false });
    expect(outcomes[1].error).toContain("HubSpot refused the record: Property values were not valid");
    expect(outcomes[1].error).toContain("Email address not-an-email is invalid");
    expect([...hub.contacts.keys()].sort()).toEqual(["user1@example.com", "user3@example.com"]);
    // One request; each record's log shows its own input and its own result.
    expect(inputCounts()).toEqual([3]);
    expect(hub.requests[0].url).toBe("/crm/v3/objects/contacts/batch/upsert");
    expect((parseBody(hub.requests[0]) as { inputs: Row[] }).inputs[0]).toEqual({ idProperty: "email", id: "user1@example.com", properties: contact(1), objectWriteTraceId: "1" });
    expect(outcomes[0].log?.request).toEqual({ line: `POST ${hub.url}/crm/v3/objects/contacts/batch/upsert (record 1 of 3 in one request)`, body: expect.objectContaining({ id: "user1@example.com" }) });
    expect(outcomes[1].log?.response.body).toMatchObject({ category: "VALIDATION_ERROR", context: { objectWriteTraceId: ["2"] } });
  });

  it("fails a record without the unique property alone, unsent", async () => {
    const batch = records(2, contact);
    delete batch[0].payload.email;
    const outcomes = await hubspotDestination.write(config(), batch, { stream, batch: true });
    expect(outcomes.find((o) => o.key === "1")).toMatchObject({ ok: false, retryable: false, error: expect.stringContaining("no value for email") });
    expect(outcomes.find((o) => o.key === "2")?.ok).toBe(true);
    expect(inputCounts()).toEqual([1]);
  });

  it("never sends more than 100 inputs a request, which the API refuses", async () => {
    const { outcomes } = await loadThrough(hubspotDestination, config(), stream, records(250, contact));
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(inputCounts()).toEqual([100, 100, 50]);
    // Even a chunk bigger than the stream's batch size is cut to the limit.
    hub.requests.length = 0;
    await hubspotDestination.write(config(), records(101, contact), { stream: { ...stream, batch_size: 500 }, batch: true });
    expect(inputCounts()).toEqual([100, 1]);
    // The emulator refuses what HubSpot refuses.
    const tooMany = await fetch(`${hub.url}/crm/v3/objects/contacts/batch/upsert`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ inputs: records(101, contact).map((r) => ({ idProperty: "email", id: r.payload.email, properties: r.payload })) }),
    });
    expect(tooMany.status).toBe(400);
  });

  it("waits out a 429 for the interval the rate-limit headers name, then succeeds", async () => {
    hub.window.max = 1;
    hub.window.windowMs = 1000;
    await hubspotDestination.write(config(), records(1, contact), { stream, batch: true });
    const [throttled] = await hubspotDestination.write(config(), records(1, contact), { stream, batch: true });
    expect(throttled).toMatchObject({ ok: false, status: 429, retryable: true, retryAfterSeconds: 1, error: "HubSpot answered HTTP 429: You have reached your secondly limit." });
    // Through the engine: a retry 1 ms later would be throttled again; honouring the wait, it passes.
    const { outcomes } = await loadThrough(hubspotDestination, config(), stream, records(2, contact));
    expect(outcomes.map((o) => o.ok)).toEqual([true, true]);
    expect(hub.requests.map((r) => r.method)).toEqual(["POST", "POST", "POST", "POST"]);
  });

  it("creates in insert mode and updates in update mode, each refusal pinned on its record", async () => {
    await hubspotDestination.write(config(), records(1, contact), { stream, batch: true });
    const inserts = await hubspotDestination.write(config(), records(2, contact, "insert"), { stream, batch: true });
    expect(inserts.map((o) => [o.key, o.ok])).toEqual([["1", false], ["2", true]]);
    expect(inserts[0].error).toMatch(/Contact already exists/);
    const updates = await hubspotDestination.write(config(), records(3, contact, "update"), { stream, batch: true });
    expect(updates.map((o) => o.ok)).toEqual([true, true, false]);
    expect(updates[2].error).toBe("HubSpot refused the record: Could not find email=user3@example.com");
    expect(hub.requests.slice(1).map((r) => r.url)).toEqual(["/crm/v3/objects/contacts/batch/create", "/crm/v3/objects/contacts/batch/update"]);
  });

  it("masks the token in answers, logs and errors, and keeps it off a new base URL", async () => {
    const definition = getDefinition("Hubspot", "destination")!;
    expect(maskSecrets(config(), definition).access_token).toBe(SECRET_MASK);
    const outcomes = await hubspotDestination.write(config(), records(2, contact), { stream, batch: true });
    expect(JSON.stringify(outcomes)).not.toContain(TOKEN);
    expect(() => mergeMaskedSecrets({ ...config(), access_token: SECRET_MASK, base_url: "https://attacker.example" }, config(), definition)).toThrow(SecretTargetChangedError);
    expect(mergeMaskedSecrets({ ...config(), access_token: SECRET_MASK }, config(), definition).access_token).toBe(TOKEN);
  });

  it("obeys the outbound network policy: loopback only where the operator allows it", async () => {
    process.env.OUTBOUND_ALLOW_PRIVATE = "";
    const [outcome] = await hubspotDestination.write(config(), records(1, contact), { stream, batch: true });
    expect(outcome).toMatchObject({ ok: false, retryable: false, error: expect.stringMatching(/private, loopback or link-local/) });
    expect((await hubspotDestination.check(config())).ok).toBe(false);
    expect(hub.requests).toHaveLength(0);
  });
});

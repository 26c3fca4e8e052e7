// Airtable destination against the Airtable Web API emulator (tests/emulators/airtable.ts) on 127.0.0.1.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Row, Stream } from "../types";
import { getDefinition, maskSecrets, mergeMaskedSecrets, SECRET_MASK, SecretTargetChangedError } from "../registry";
import { loadThrough, parseBody, records } from "@/tests/emulators/common";
import { startAirtableEmulator } from "@/tests/emulators/airtable";
import { airtableDestination } from "./destination";

const TOKEN = "patEmulator.secret-token-value";
const BASE = "appEmulatorBase01";
let air: Awaited<ReturnType<typeof startAirtableEmulator>>;
let stream: Stream;
const config = (overrides: Row = {}): Row => ({ api_key: TOKEN, base_id: BASE, base_url: air.url, timeout: 5, ...overrides });
const person = (i: number): Row => ({ Email: `user${i}@example.com`, Name: `User ${i}`, Age: 20 + i });
const writes = () => air.requests.filter((r) => r.method !== "GET");
const recordCounts = () => writes().map((r) => (parseBody(r) as { records: unknown[] }).records.length);

beforeAll(async () => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  air = await startAirtableEmulator({ token: TOKEN, baseId: BASE });
  [stream] = (await airtableDestination.discover(config())).streams;
});
afterAll(() => air.close());
beforeEach(() => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  air.reset();
  air.requests.length = 0;
  // Most cases are not about the rate limit: the engine's budget (5/s) is not in play here.
  air.window.max = 1000;
});

describe("Airtable destination", () => {
  it("checks the token and the base, with Airtable's reason when refused", async () => {
    expect(await airtableDestination.check(config())).toEqual({ ok: true, details: "Connected to Airtable; the base has 1 table." });
    const bad = await airtableDestination.check(config({ api_key: "patWrong.token" }));
    expect(bad).toEqual({ ok: false, details: "Airtable rejected the credentials. Airtable answered HTTP 401: AUTHENTICATION_REQUIRED: Authentication required" });
    const otherBase = await airtableDestination.check(config({ base_id: "appSomeoneElses1" }));
    expect(otherBase.details).toMatch(/^Airtable rejected the credentials\. .*INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND/);
  });

  it("discovers each table's writable fields, merged on its primary field, 10 records per request at 5 per second", async () => {
    expect(stream).toMatchObject({ name: "Contacts", primary_key: ["Email"], batch_size: 10, request_method: "PATCH" });
    expect(Object.keys((stream.json_schema as { properties: Row }).properties)).toEqual(["Email", "Name", "Age"]);
    const catalog = await airtableDestination.discover(config({ merge_fields: ["Name"] }));
    expect(catalog).toMatchObject({ request_rate_limit: 5, request_rate_limit_unit: "second", request_rate_concurrency: 1 });
    expect(catalog.streams[0].primary_key).toEqual(["Name"]);
    expect(airtableDestination.definition.writeModes).toEqual(["upsert", "insert"]);
  });

  it("upserts on the merge fields: a second write of the same email updates the record", async () => {
    await airtableDestination.write(config(), records(2, person), { stream, batch: true });
    const again = await airtableDestination.write(config(), [{ key: "9", action: "upsert", payload: { ...person(1), Name: "Renamed" } }], { stream, batch: true });
    expect(again[0]).toMatchObject({ ok: true, status: 200 });
    expect(air.rows.map((r) => r.fields.Name)).toEqual(["Renamed", "User 2"]);
    expect(writes()[0]).toMatchObject({ method: "PATCH", url: `/v0/${BASE}/Contacts` });
    expect(parseBody(writes()[0])).toEqual({ performUpsert: { fieldsToMergeOn: ["Email"] }, records: [{ fields: person(1) }, { fields: person(2) }], typecast: false });
  });

  it("isolates a bad record of a batch Airtable refuses whole; only it fails, with Airtable's text", async () => {
    const batch = records(10, person);
    batch[6].payload.Age = "old";
    const { outcomes } = await loadThrough(airtableDestination, config(), stream, batch);
    expect(outcomes.filter((o) => !o.ok).map((o) => o.key)).toEqual(["7"]);
    expect(outcomes.find((o) => o.key === "7")).toMatchObject({
      status: 422,
      retryable: false,
      error: 'Airtable answered HTTP 422: INVALID_VALUE_FOR_COLUMN: Field "Age" cannot accept the provided value',
    });
    expect(air.rows).toHaveLength(9);
  });

  it("sends at most 10 records a request, which is all Airtable takes", async () => {
    const { outcomes } = await loadThrough(airtableDestination, config(), stream, records(25, person));
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(recordCounts()).toEqual([10, 10, 5]);
    air.requests.length = 0;
    await airtableDestination.write(config(), records(11, person), { stream: { ...stream, batch_size: 50 }, batch: true });
    expect(recordCounts()).toEqual([10, 1]);
    const eleven = await fetch(`${air.url}/v0/${BASE}/Contacts`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ records: records(11, person).map((r) => ({ fields: r.payload })) }),
    });
    expect(eleven.status).toBe(422);
  });

  it("reports a 429 as a 30-second wait, which the engine takes off the worker instead of retrying at once", async () => {
    air.window.max = 5;
    for (let i = 0; i < 5; i++) await airtableDestination.write(config(), records(1, person), { stream, batch: true });
    const [throttled] = await airtableDestination.write(config(), records(1, person), { stream, batch: true });
    expect(throttled).toMatchObject({ ok: false, status: 429, retryable: true, retryAfterSeconds: 30, error: "Airtable answered HTTP 429: RATE_LIMIT_REACHED: Rate limit exceeded. Please try again later" });
    const before = air.requests.length;
    const { longWaits } = await loadThrough(airtableDestination, config(), stream, records(1, person), { longWaitMs: 1000 });
    // One more request (throttled), then the wait is handed over: no request during the lockout.
    expect(air.requests.length).toBe(before + 1);
    expect(longWaits).toEqual([{ waitMs: expect.any(Number), cause: "retry" }]);
    expect(longWaits[0].waitMs).toBeGreaterThanOrEqual(30_000);
    // Once the base opens again, the same records go through.
    air.reset();
    expect((await loadThrough(airtableDestination, config(), stream, records(1, person))).outcomes[0].ok).toBe(true);
  });

  it("creates records with POST in insert mode", async () => {
    const [outcome] = await airtableDestination.write(config({ typecast: true }), records(1, person, "insert"), { stream, batch: true });
    expect(outcome.ok).toBe(true);
    expect(writes()[0].method).toBe("POST");
    expect(parseBody(writes()[0])).toEqual({ records: [{ fields: person(1) }], typecast: true });
  });

  it("masks the token everywhere and keeps it off a new base URL", async () => {
    const definition = getDefinition("Airtable", "destination")!;
    expect(maskSecrets(config(), definition).api_key).toBe(SECRET_MASK);
    const outcomes = await airtableDestination.write(config(), records(2, person), { stream, batch: true });
    expect(JSON.stringify(outcomes)).not.toContain(TOKEN);
    expect(air.requests[0].headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(() => mergeMaskedSecrets({ ...config(), api_key: SECRET_MASK, base_url: "https://elsewhere.example" }, config(), definition)).toThrow(SecretTargetChangedError);
  });

  it("obeys the outbound network policy", async () => {
    process.env.OUTBOUND_ALLOW_PRIVATE = "";
    const [outcome] = await airtableDestination.write(config(), records(1, person), { stream, batch: true });
    expect(outcome).toMatchObject({ ok: false, retryable: false, error: expect.stringMatching(/private, loopback or link-local/) });
    expect(air.requests).toHaveLength(0);
  });
});

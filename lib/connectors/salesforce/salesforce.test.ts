// Salesforce destination against the Salesforce REST API emulator (tests/emulators/salesforce.ts) on 127.0.0.1.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Row, Stream } from "../types";
import { getDefinition, maskSecrets, mergeMaskedSecrets, SECRET_MASK, SecretTargetChangedError } from "../registry";
import { loadThrough, parseBody, records } from "@/tests/emulators/common";
import { startSalesforceEmulator } from "@/tests/emulators/salesforce";
import { salesforceDestination } from "./destination";

const CLIENT_ID = "3MVG9emulatorConsumerKey";
const SECRET = "emulator-consumer-secret-0123456789";
const REFRESH = "5Aep861emulatorRefreshToken0123456789";
let sf: Awaited<ReturnType<typeof startSalesforceEmulator>>;
let stream: Stream;
const config = (overrides: Row = {}): Row => ({
  base_url: sf.url,
  client_id: CLIENT_ID,
  client_secret: SECRET,
  sobject: "Contact",
  external_id_field: "External_Id__c",
  timeout: 5,
  ...overrides,
});
const contact = (i: number): Row => ({ External_Id__c: `ext-${i}`, LastName: `Doe ${i}`, Email: `c${i}@example.com` });
const writes = () => sf.requests.filter((r) => r.url.includes("/composite/"));
const recordCounts = () => writes().map((r) => (parseBody(r) as { records: unknown[] }).records.length);

beforeAll(async () => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  sf = await startSalesforceEmulator({ clientId: CLIENT_ID, clientSecret: SECRET, refreshToken: REFRESH });
  [stream] = (await salesforceDestination.discover(config())).streams;
});
afterAll(() => sf.close());
beforeEach(() => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  sf.requests.length = 0;
  sf.contacts.clear();
  Object.assign(sf.state, { apiUsed: 0, apiAllowance: 15_000 });
});

describe("Salesforce destination", () => {
  it("checks the connected app's client credentials and the external id field", async () => {
    expect(await salesforceDestination.check(config())).toEqual({ ok: true, details: "Connected to Salesforce; Contact can be upserted by External_Id__c." });
    expect(await salesforceDestination.check(config({ external_id_field: "Email" }))).toMatchObject({ ok: true, details: expect.stringContaining("Email is not an External ID field") });
    const bad = await salesforceDestination.check(config({ client_secret: "wrong-secret-value" }));
    expect(bad).toEqual({ ok: false, details: "Salesforce refused the client credentials (invalid_client: invalid client credentials)." });
  });

  it("discovers the object's writable fields, keyed by the external id, 200 per request", async () => {
    expect(stream).toMatchObject({ name: "Contact", primary_key: ["External_Id__c"], batch_size: 200, request_method: "PATCH" });
    expect(Object.keys((stream.json_schema as { properties: Row }).properties)).toEqual(["LastName", "FirstName", "Email", "External_Id__c", "Employees__c"]);
    expect(salesforceDestination.definition.writeModes).toEqual(["upsert", "insert"]);
  });

  it("upserts by external id; each record Salesforce refuses fails alone with its status code and message", async () => {
    await salesforceDestination.write(config(), records(1, contact), { stream, batch: true });
    const batch = records(4, contact);
    batch[1].payload.Email = "not-an-email";
    delete batch[3].payload.LastName;
    const outcomes = await salesforceDestination.write(config(), batch, { stream, batch: true });
    expect(outcomes.map((o) => [o.key, o.ok])).toEqual([["1", true], ["2", false], ["3", true], ["4", false]]);
    expect(outcomes[1].error).toBe("Salesforce refused the record: INVALID_EMAIL_ADDRESS: Email: invalid email address: not-an-email (fields: Email)");
    expect(outcomes[3].error).toBe("Salesforce refused the record: REQUIRED_FIELD_MISSING: Required fields are missing: [LastName] (fields: LastName)");
    expect(outcomes[0].log?.response.body).toMatchObject({ success: true, created: false });
    const request = writes()[1];
    expect(request).toMatchObject({ method: "PATCH", url: "/services/data/v60.0/composite/sobjects/Contact/External_Id__c" });
    expect((parseBody(request) as { allOrNone: boolean; records: Row[] }).records[0]).toEqual({ attributes: { type: "Contact" }, ...contact(1) });
  });

  it("isolates a record with an unknown field, which makes Salesforce refuse the whole request", async () => {
    const batch = records(6, contact);
    batch[4].payload.Nickname__c = "Jo";
    const { outcomes } = await loadThrough(salesforceDestination, config(), stream, batch);
    expect(outcomes.filter((o) => !o.ok).map((o) => [o.key, o.error])).toEqual([["5", "Salesforce answered HTTP 400: INVALID_FIELD: No such column 'Nickname__c' on sobject of type Contact"]]);
    expect(sf.contacts.size).toBe(5);
  });

  it("sends at most 200 records a request, which is all Salesforce takes", async () => {
    const { outcomes } = await loadThrough(salesforceDestination, config(), stream, records(450, contact));
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(recordCounts()).toEqual([200, 200, 50]);
    const token = (await (await fetch(`${sf.url}/services/oauth2/token`, { method: "POST", body: new URLSearchParams({ grant_type: "client_credentials", client_id: CLIENT_ID, client_secret: SECRET }) })).json()) as { access_token: string };
    const tooMany = await fetch(`${sf.url}/services/data/v60.0/composite/sobjects/Contact/External_Id__c`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${token.access_token}`, "content-type": "application/json" },
      body: JSON.stringify({ allOrNone: false, records: records(201, contact).map((r) => ({ attributes: { type: "Contact" }, ...r.payload })) }),
    });
    expect(tooMany.status).toBe(400);
  });

  it("fetches a new token when the session expired, and retries", async () => {
    await salesforceDestination.write(config(), records(1, contact), { stream, batch: true });
    const issued = sf.state.tokensIssued;
    sf.expireTokens();
    const [expired] = await salesforceDestination.write(config(), records(1, contact), { stream, batch: true });
    expect(expired).toMatchObject({ ok: false, status: 401, retryable: true, error: "Salesforce answered HTTP 401: INVALID_SESSION_ID: Session expired or invalid" });
    const { outcomes } = await loadThrough(salesforceDestination, config(), stream, records(2, contact));
    expect(outcomes.map((o) => o.ok)).toEqual([true, true]);
    expect(sf.state.tokensIssued).toBe(issued + 1);
  });

  it("treats 403 REQUEST_LIMIT_EXCEEDED as throttling: retryable, with a long wait the engine takes off the worker", async () => {
    sf.state.apiAllowance = 0;
    const [limited] = await salesforceDestination.write(config(), records(1, contact), { stream, batch: true });
    expect(limited).toMatchObject({ ok: false, status: 403, retryable: true, error: "Salesforce answered HTTP 403: REQUEST_LIMIT_EXCEEDED: TotalRequests Limit exceeded." });
    expect(limited.retryAfterSeconds).toBeGreaterThan(0);
    const { longWaits } = await loadThrough(salesforceDestination, config(), stream, records(1, contact), { longWaitMs: 100 });
    expect(longWaits).toEqual([{ waitMs: limited.retryAfterSeconds! * 1000, cause: "retry" }]);
  });

  it("waits out an HTTP 429 by its Retry-After through the engine's loader, then sends the refused request again", async () => {
    await salesforceDestination.write(config(), records(1, contact), { stream, batch: true });
    sf.requests.length = 0;
    sf.control.throttleNext = 1;
    const [throttled] = await salesforceDestination.write(config(), records(1, contact), { stream, batch: true });
    expect(throttled).toMatchObject({ ok: false, status: 429, retryable: true, retryAfterSeconds: 1 });
    sf.requests.length = 0;
    sf.contacts.clear();
    sf.control.throttleNext = 1;
    const { outcomes, longWaits } = await loadThrough(salesforceDestination, config(), stream, records(450, contact));
    expect(outcomes.filter((o) => o.ok)).toHaveLength(450);
    expect(longWaits).toEqual([]);
    expect(sf.control.throttled).toBe(2);
    // The first request was answered 429; the Loader went on with the others and sent it again after.
    expect(recordCounts().sort()).toEqual([200, 200, 200, 50]);
    expect(writes().filter((w) => w.body === writes()[0].body)).toHaveLength(2);
    expect(sf.contacts.size).toBe(450);
  });

  it("creates records with POST in insert mode", async () => {
    const outcomes = await salesforceDestination.write(config(), records(2, contact, "insert"), { stream, batch: true });
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(writes()[0]).toMatchObject({ method: "POST", url: "/services/data/v60.0/composite/sobjects" });
  });

  it("masks the consumer secret, never logs the token, and keeps the secret off a new My Domain URL", async () => {
    const definition = getDefinition("Salesforce", "destination")!;
    expect(maskSecrets(config(), definition)).toMatchObject({ client_secret: SECRET_MASK, client_id: CLIENT_ID });
    const outcomes = await salesforceDestination.write(config(), records(2, contact), { stream, batch: true });
    const text = JSON.stringify(outcomes);
    expect(text).not.toContain(SECRET);
    expect(text).not.toMatch(/00D!/);
    expect(() => mergeMaskedSecrets({ ...config(), client_secret: SECRET_MASK, base_url: "https://attacker.example" }, config(), definition)).toThrow(SecretTargetChangedError);
  });

  it("takes the reference's settings (instance_url, a user's tokens) unchanged: refresh token grant, upserts on Id", async () => {
    const reference: Row = { access_token: "00D!stale-access-token", refresh_token: REFRESH, instance_url: sf.url, client_id: CLIENT_ID, client_secret: SECRET };
    expect(getDefinition("SalesforceCrm", "destination")).toBe(salesforceDestination.definition);
    expect(await salesforceDestination.check({ ...reference, timeout: 5 })).toEqual({ ok: true, details: "Connected to Salesforce; Contact can be upserted by Id." });
    const token = sf.requests.find((r) => r.url === "/services/oauth2/token");
    expect(new URLSearchParams(token?.body).get("grant_type")).toBe("refresh_token");
    // Upserting on Id: a record without one is created.
    const created = await salesforceDestination.write(reference, [{ key: "1", action: "upsert", payload: { LastName: "New" } }], { stream, batch: true });
    expect(created[0], JSON.stringify(created[0])).toMatchObject({ ok: true });
    const [id] = [...sf.contacts.keys()];
    const [updated] = await salesforceDestination.write(reference, [{ key: "1", action: "upsert", payload: { Id: id, LastName: "Renamed" } }], { stream, batch: true });
    expect(updated).toMatchObject({ ok: true });
    expect(sf.contacts.get(id)?.LastName).toBe("Renamed");
    const refused = await salesforceDestination.check({ ...reference, refresh_token: "revoked-refresh-token", timeout: 5 });
    expect(refused).toEqual({ ok: false, details: "Salesforce refused the refresh token (invalid_grant: expired access/refresh token)." });
    expect(maskSecrets(reference, salesforceDestination.definition)).toMatchObject({ access_token: SECRET_MASK, refresh_token: SECRET_MASK, client_secret: SECRET_MASK, instance_url: sf.url });
  });

  it("obeys the outbound network policy, for the token request too", async () => {
    process.env.OUTBOUND_ALLOW_PRIVATE = "";
    const [outcome] = await salesforceDestination.write(config({ client_secret: "another-secret-not-cached" }), records(1, contact), { stream, batch: true });
    expect(outcome).toMatchObject({ ok: false, retryable: false, error: expect.stringMatching(/private, loopback or link-local/) });
    expect(sf.requests).toHaveLength(0);
  });
});

// Mailchimp destination against the Mailchimp Marketing API emulator (tests/emulators/mailchimp.ts) on 127.0.0.1.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Row, Stream } from "../types";
import { getDefinition, maskSecrets, mergeMaskedSecrets, SECRET_MASK, SecretTargetChangedError } from "../registry";
import { loadThrough, parseBody, records } from "@/tests/emulators/common";
import { startMailchimpEmulator } from "@/tests/emulators/mailchimp";
import { mailchimpBaseUrl, mailchimpDestination } from "./destination";

const KEY = "0123456789abcdef0123456789abcdef-us6";
const LIST = "a1b2c3d4e5";
let mc: Awaited<ReturnType<typeof startMailchimpEmulator>>;
let stream: Stream;
const config = (overrides: Row = {}): Row => ({ api_key: KEY, list_id: LIST, base_url: `${mc.url}/3.0`, timeout: 5, ...overrides });
const member = (i: number): Row => ({ email_address: `user${i}@example.com`, status: "subscribed", FNAME: `User ${i}` });
const batchSizes = () => mc.requests.filter((r) => r.method === "POST").map((r) => (parseBody(r) as { members: unknown[] }).members.length);

beforeAll(async () => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  mc = await startMailchimpEmulator({ apiKey: KEY, listId: LIST });
  [stream] = (await mailchimpDestination.discover(config())).streams;
});
afterAll(() => mc.close());
beforeEach(() => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  mc.requests.length = 0;
  mc.members.clear();
  Object.assign(mc.state, { maxConnections: 10, holdMs: 0 });
});

describe("Mailchimp destination", () => {
  it("finds the API host from the key's data center, and takes nothing else from the key", () => {
    expect(mailchimpBaseUrl({ api_key: KEY })).toBe("https://us6.api.mailchimp.com/3.0");
    for (const key of ["no-datacenter", "abc-us6.evil.example", "abc-us6/x", ""]) expect(() => mailchimpBaseUrl({ api_key: key })).toThrow(/data center/);
  });

  it("checks the key over HTTP Basic against the audience", async () => {
    expect(await mailchimpDestination.check(config())).toEqual({ ok: true, details: 'Connected to Mailchimp audience "Emulated audience".' });
    expect(Buffer.from(String(mc.requests[0].headers.authorization).slice(6), "base64").toString()).toBe(`datasync:${KEY}`);
    const bad = await mailchimpDestination.check(config({ api_key: "ffffffffffffffffffffffffffffffff-us6" }));
    expect(bad).toEqual({
      ok: false,
      details: "Mailchimp rejected the credentials. Mailchimp answered HTTP 401: API Key Invalid: Your API key may be invalid, or you've attempted to access the wrong datacenter.",
    });
  });

  it("discovers the audience's merge fields", async () => {
    expect(stream).toMatchObject({ name: "members", primary_key: ["email_address"], batch_size: 500 });
    expect(Object.keys((stream.json_schema as { properties: Row }).properties)).toEqual(["email_address", "status", "FNAME", "AGE"]);
    expect(mailchimpDestination.definition.writeModes).toEqual(["upsert", "insert"]);
  });

  it("upserts members; the one Mailchimp lists under errors fails alone with its sentence", async () => {
    const batch = records(3, member);
    batch[1].payload.email_address = "nobody@nowhere";
    const outcomes = await mailchimpDestination.write(config(), batch, { stream, batch: true });
    expect(outcomes.map((o) => [o.key, o.ok])).toEqual([["1", true], ["2", false], ["3", true]]);
    expect(outcomes[1].error).toBe("Mailchimp refused the record: nobody@nowhere looks fake or invalid, please enter a real email address. (ERROR_GENERIC)");
    expect(parseBody(mc.requests[0])).toEqual({
      members: [
        { email_address: "user1@example.com", status: "subscribed", merge_fields: { FNAME: "User 1" } },
        { email_address: "nobody@nowhere", status: "subscribed", merge_fields: { FNAME: "User 2" } },
        { email_address: "user3@example.com", status: "subscribed", merge_fields: { FNAME: "User 3" } },
      ],
      update_existing: true,
    });
  });

  it("refuses an upsert without a status (it would set existing members' status), and inserts with the configured one", async () => {
    const [noStatus] = await mailchimpDestination.write(config(), [{ key: "1", action: "upsert", payload: { email_address: "a@example.com" } }], { stream, batch: true });
    expect(noStatus).toMatchObject({ ok: false, retryable: false, error: expect.stringContaining("no status") });
    expect(mc.requests).toHaveLength(0);
    await mailchimpDestination.write(config(), records(1, member), { stream, batch: true });
    const inserts = await mailchimpDestination.write(config({ new_member_status: "pending" }), records(2, (i) => ({ email_address: `user${i}@example.com` }), "insert"), { stream, batch: true });
    expect(inserts.map((o) => o.ok)).toEqual([false, true]);
    expect(inserts[0].error).toMatch(/already a list member.*\(ERROR_CONTACT_EXISTS\)$/);
    expect(mc.members.get("user2@example.com")?.status).toBe("pending");
  });

  it("sends at most 500 members a batch", async () => {
    const { outcomes } = await loadThrough(mailchimpDestination, config(), stream, records(1100, member));
    expect(outcomes.every((o) => o.ok)).toBe(true);
    // The loader sends chunks side by side, so they may arrive in any order.
    expect(batchSizes().sort((a, b) => b - a)).toEqual([500, 500, 100]);
    const tooMany = await fetch(`${mc.url}/3.0/lists/${LIST}`, {
      method: "POST",
      headers: { authorization: `Basic ${Buffer.from(`x:${KEY}`).toString("base64")}`, "content-type": "application/json" },
      body: JSON.stringify({ members: records(501, member).map((r) => r.payload), update_existing: true }),
    });
    expect(tooMany.status).toBe(400);
  });

  it("retries a 429 (too many simultaneous connections) after a second", async () => {
    Object.assign(mc.state, { maxConnections: 1, holdMs: 300 });
    const [first, second] = await Promise.all([
      mailchimpDestination.write(config(), records(1, member), { stream, batch: true }),
      mailchimpDestination.write(config(), records(1, (i) => member(i + 10)), { stream, batch: true }),
    ]);
    expect([first[0].ok, second[0]]).toEqual([true, expect.objectContaining({ ok: false, status: 429, retryable: true, retryAfterSeconds: 1 })]);
    const results = await Promise.all([
      loadThrough(mailchimpDestination, config(), stream, records(1, member)),
      loadThrough(mailchimpDestination, config(), stream, records(1, (i) => member(i + 10))),
    ]);
    expect(results.map((r) => r.outcomes[0].ok)).toEqual([true, true]);
  });

  it("masks the key everywhere and keeps it off a new base URL", async () => {
    const definition = getDefinition("Mailchimp", "destination")!;
    expect(maskSecrets(config(), definition).api_key).toBe(SECRET_MASK);
    const outcomes = await mailchimpDestination.write(config(), records(2, member), { stream, batch: true });
    expect(JSON.stringify(outcomes)).not.toContain(KEY);
    expect(() => mergeMaskedSecrets({ ...config(), api_key: SECRET_MASK, base_url: "https://elsewhere.example/3.0" }, config(), definition)).toThrow(SecretTargetChangedError);
  });

  it("obeys the outbound network policy", async () => {
    process.env.OUTBOUND_ALLOW_PRIVATE = "";
    const [outcome] = await mailchimpDestination.write(config(), records(1, member), { stream, batch: true });
    expect(outcome).toMatchObject({ ok: false, retryable: false, error: expect.stringMatching(/private, loopback or link-local/) });
    expect(mc.requests).toHaveLength(0);
  });
});

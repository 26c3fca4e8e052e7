// Facebook Custom Audiences destination against the Meta Marketing API emulator
// (tests/emulators/facebook-custom-audience.ts) on 127.0.0.1.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Row, Stream } from "../types";
import { getDefinition, maskSecrets, mergeMaskedSecrets, SECRET_MASK, SecretTargetChangedError } from "../registry";
import { loadThrough, parseBody, records } from "@/tests/emulators/common";
import { startFacebookAudienceEmulator } from "@/tests/emulators/facebook-custom-audience";
import { facebookCustomAudienceDestination as fb } from "./destination";
import { normalise } from "./normalise";

const TOKEN = "EAAGemulatorSystemUserToken0123456789";
const AUDIENCE = "23851234567890123";
const ACCOUNT = "1234567890";
const sha = (text: string) => createHash("sha256").update(text).digest("hex");
let meta: Awaited<ReturnType<typeof startFacebookAudienceEmulator>>;
let stream: Stream;
const config = (overrides: Row = {}): Row => ({ access_token: TOKEN, ad_account_id: ACCOUNT, audience_id: AUDIENCE, base_url: meta.url, timeout: 10, ...overrides });
const person = (i: number): Row => ({ email: ` User${i}@Example.COM `, phone: `+1 (650) 555-${String(i).padStart(4, "0")}`, fn: "Zoë", ln: "O'Brien-Smith", country: "US", extern_id: `crm-${i}` });
const userRequests = () => meta.requests.filter((r) => r.url.endsWith("/users"));
const sent = (i = 0) => (parseBody(userRequests()[i]) as { payload: { schema: string[]; data: (string | number)[][] } }).payload;

beforeAll(async () => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  meta = await startFacebookAudienceEmulator({ accessToken: TOKEN, audienceId: AUDIENCE, adAccountId: ACCOUNT });
  [stream] = (await fb.discover(config())).streams;
});
afterAll(() => meta.close());
beforeEach(() => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  meta.requests.length = 0;
  meta.members.clear();
  meta.state.throttle = undefined;
  meta.state.maxSamples = Number.POSITIVE_INFINITY;
});

describe("Facebook Custom Audiences destination", () => {
  it("checks the token and that the audience is a customer list of the configured ad account", async () => {
    expect(await fb.check(config())).toEqual({ ok: true, details: `Connected to Meta; audience "Emulated customers" of ad account ${ACCOUNT} takes people.` });
    expect(meta.requests[0]).toMatchObject({ method: "GET", url: `/v22.0/${AUDIENCE}?fields=id%2Cname%2Caccount_id%2Csubtype` });
    expect(meta.requests[0].headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(await fb.check(config({ ad_account_id: "act_999" }))).toMatchObject({ ok: true, details: expect.stringContaining(`belongs to ad account ${ACCOUNT}, not 999`) });
    expect(await fb.check(config({ access_token: "wrong-token" }))).toEqual({
      ok: false,
      details: "Facebook Custom Audiences answered HTTP 400: Invalid OAuth access token - Cannot parse access token (code 190)",
    });
  });

  it("discovers the customer-list keys, 10,000 people a request, with mirror mode (removal)", async () => {
    expect(stream).toMatchObject({ name: "audience", batch_size: 10_000, batch_support: true, request_method: "POST", primary_key: ["EMAIL"] });
    expect(Object.keys((stream.json_schema as { properties: Row }).properties)).toContain("MADID");
    expect(fb.definition.writeModes).toEqual(["upsert", "mirror"]);
  });

  it("normalises and hashes every personal key as Meta requires; ids go as they are", async () => {
    const outcomes = await fb.write(config(), records(2, person), { stream, batch: true });
    expect(outcomes.map((o) => o.ok)).toEqual([true, true]);
    const payload = sent();
    expect(userRequests()[0]).toMatchObject({ method: "POST", url: `/v22.0/${AUDIENCE}/users` });
    expect(payload.schema).toEqual(["EMAIL", "PHONE", "LN", "FN", "COUNTRY", "EXTERN_ID"]);
    expect(payload.data[0]).toEqual([sha("user1@example.com"), sha("16505550001"), sha("obriensmith"), sha("zoë"), sha("us"), "crm-1"]);
    expect(outcomes[0].log?.response.body).toEqual({ num_received: 2, num_invalid_entries: 0 });
    expect(meta.members.size).toBe(2);
    // Meta's table, case by case.
    expect(normalise("PHONE", "0044 20 7946 0958")).toBe("442079460958");
    expect(normalise("GEN", "Female")).toBe("f");
    expect(normalise("DOBM", "3")).toBe("03");
    expect(normalise("DOBD", "09")).toBe("09");
    expect(normalise("ZIP", "94025-1234")).toBe("94025");
    expect(normalise("ZIP", "SW1A 1AA")).toBe("sw1a1aa");
    expect(normalise("CT", "San Francisco")).toBe("sanfrancisco");
    expect(normalise("FI", " Émile")).toBe("é");
  });

  it("never lets a clear identifier reach Meta", async () => {
    const clear = (i: number): Row => ({ ...person(i), gen: "male", doby: "1990", dobm: "7", dobd: "14", ct: "Menlo Park", st: "CA", zip: "94025", fi: "Zoë" });
    const batch = records(3, clear);
    await fb.write(config(), batch, { stream, batch: true });
    await fb.write(config(), batch.map((r) => ({ ...r, action: "delete" as const })), { stream, batch: true });
    expect(userRequests()).toHaveLength(2);
    const traffic = meta.requests.map((r) => `${r.url}\n${r.body}`).join("\n").toLowerCase();
    const identifiers = batch.flatMap((r) => ["email", "phone", "fn", "ln", "ct", "zip"].map((k) => String(r.payload[k]).trim().toLowerCase()));
    for (const value of [...identifiers, "user1@example.com", "16505550001", "6505550001", "menlopark", "menlo park", "zoë", "obriensmith", "1990"]) {
      expect(traffic, value).not.toContain(value);
    }
    // Every personal value is a SHA-256 hex digest.
    for (const request of userRequests()) {
      const { schema, data } = (parseBody(request) as { payload: { schema: string[]; data: string[][] } }).payload;
      for (const row of data) row.forEach((v, i) => (schema[i] === "EXTERN_ID" ? expect(v).toMatch(/^crm-\d$/) : expect(v).toMatch(/^[0-9a-f]{64}$/)));
    }
  });

  it("fails the people Meta names as invalid, and those that cannot be normalised unsent", async () => {
    const batch = records(5, (i) => ({ email: `user${i}@example.com` }));
    batch[1].payload.madid = "not-a-device-id";
    batch[2].payload.email = "nobody-at-example";
    batch[3].payload.nickname = "Jo";
    batch[4].payload = { country: "US" };
    const outcomes = await fb.write(config(), batch, { stream, batch: true });
    expect(outcomes.map((o) => [o.key, o.ok])).toEqual([["3", false], ["4", false], ["5", false], ["1", true], ["2", false]]);
    expect(outcomes.find((o) => o.key === "2")).toMatchObject({ status: 200, retryable: false, error: "Facebook Custom Audiences refused the record: an invalid entry: MADID is not a mobile advertiser id" });
    expect(outcomes.find((o) => o.key === "3")?.error).toBe("The EMAIL value is not an e-mail address; the record was not sent.");
    expect(outcomes.find((o) => o.key === "4")?.error).toMatch(/^Column "nickname" is not a Meta customer-list key/);
    expect(outcomes.find((o) => o.key === "5")?.error).toMatch(/no identifier/);
    expect(JSON.stringify(outcomes)).not.toContain("nobody-at-example");
    expect(sent().data).toHaveLength(2);
    expect(meta.members.size).toBe(1);
  });

  it("says so on every record when Meta counted more invalid entries than it named", async () => {
    meta.state.maxSamples = 1;
    const batch = records(3, (i) => ({ email: `user${i}@example.com`, madid: i === 1 ? "6d92078a-8246-4ba4-ae5b-76104861e7dc" : `bad-device-${i}` }));
    const outcomes = await fb.write(config(), batch, { stream, batch: true });
    expect(outcomes.map((o) => o.ok)).toEqual([true, false, true]);
    expect(outcomes[0].log?.response.body).toEqual({ num_received: 3, num_invalid_entries: 2, note: "1 invalid entry of this request Meta counted without naming it" });
  });

  it("removes people in mirror mode with DELETE on the same edge", async () => {
    await fb.write(config(), records(3, person), { stream, batch: true });
    const removed = await fb.write(config(), records(2, person, "delete"), { stream, batch: true });
    expect(removed.every((o) => o.ok)).toBe(true);
    expect(userRequests()[1]).toMatchObject({ method: "DELETE", url: `/v22.0/${AUDIENCE}/users` });
    expect(meta.members.size).toBe(1);
  });

  it("sends at most 10,000 people a request", async () => {
    const { outcomes } = await loadThrough(fb, config(), stream, records(10_050, (i) => ({ email: `u${i}@example.com` })));
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(userRequests().map((_, i) => sent(i).data.length)).toEqual([10_000, 50]);
  });

  it("treats Meta's throttling error (code 80003) as a rate limit, waiting as X-Business-Use-Case-Usage says", async () => {
    meta.state.throttle = { count: 1, kind: "business", wait: 2 };
    const [throttled] = await fb.write(config(), records(1, person), { stream, batch: true });
    expect(throttled).toMatchObject({ ok: false, status: 400, retryable: true, retryAfterSeconds: 120, error: expect.stringContaining("(code 80003)") });
    // Through the engine: a two-minute wait is handed over (the run resumes later), not slept through.
    meta.state.throttle = { count: 1, kind: "business", wait: 2 };
    const { outcomes, longWaits } = await loadThrough(fb, config(), stream, records(1, person), { longWaitMs: 30_000 });
    expect(longWaits).toEqual([{ waitMs: 120_000, cause: "retry" }]);
    expect(outcomes.map((o) => [o.ok, o.retryable])).toEqual([[false, true]]);
    // Access regained at once: the retry goes through.
    meta.state.throttle = { count: 1, kind: "business", wait: 0 };
    const again = await loadThrough(fb, config(), stream, records(2, person));
    expect(again.outcomes.every((o) => o.ok)).toBe(true);
  });

  it("honours Retry-After on a 429", async () => {
    meta.state.throttle = { count: 1, kind: "http429", wait: 1 };
    const { outcomes } = await loadThrough(fb, config(), stream, records(3, person), { maxAttempts: 2 });
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(userRequests()).toHaveLength(2);
    expect(meta.members.size).toBe(3);
  });

  it("masks the token everywhere and keeps it off a new base URL", async () => {
    const definition = getDefinition("FacebookCustomAudience", "destination")!;
    expect(maskSecrets(config(), definition)).toMatchObject({ access_token: SECRET_MASK, audience_id: AUDIENCE, ad_account_id: ACCOUNT });
    const outcomes = await fb.write(config(), records(2, person), { stream, batch: true });
    expect(JSON.stringify(outcomes)).not.toContain(TOKEN);
    expect(() => mergeMaskedSecrets({ ...config(), access_token: SECRET_MASK, base_url: "https://elsewhere.example" }, config(), definition)).toThrow(SecretTargetChangedError);
  });

  it("obeys the outbound network policy", async () => {
    process.env.OUTBOUND_ALLOW_PRIVATE = "";
    const [outcome] = await fb.write(config(), records(1, person), { stream, batch: true });
    expect(outcome).toMatchObject({ ok: false, retryable: false, error: expect.stringMatching(/private, loopback or link-local/) });
    expect(meta.requests).toHaveLength(0);
  });
});

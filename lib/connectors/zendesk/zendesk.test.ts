// Zendesk destination against the Zendesk Support API emulator (tests/emulators/zendesk.ts) on 127.0.0.1.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Row, Stream } from "../types";
import { getDefinition, maskSecrets, mergeMaskedSecrets, SECRET_MASK, SecretTargetChangedError, validateConfiguration } from "../registry";
import { json, loadThrough, parseBody, records, startEmulator } from "@/tests/emulators/common";
import { startZendeskEmulator } from "@/tests/emulators/zendesk";
import { zendeskBaseUrl, zendeskDestination } from "./destination";

const EMAIL = "agent@example.com";
const TOKEN = "zdtok_0123456789abcdefghijklmnopqrstuvwxyz";
let zd: Awaited<ReturnType<typeof startZendeskEmulator>>;
let streams: Record<string, Stream>;
const config = (overrides: Row = {}): Row => ({ username: `${EMAIL}/token`, password: TOKEN, subdomain: "https://acme", base_url: `${zd.url}/api/v2`, timeout: 5, ...overrides });
const person = (i: number): Row => ({ name: `User ${i}`, email: `user${i}@example.com`, external_id: `u-${i}`, role: "end-user" });
const posts = (path: string) => zd.requests.filter((r) => r.method === "POST" && r.url.startsWith(`/api/v2${path}`));

beforeAll(async () => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  zd = await startZendeskEmulator({ email: EMAIL, token: TOKEN });
  streams = Object.fromEntries((await zendeskDestination.discover(config())).streams.map((s) => [s.name, s]));
});
afterAll(() => zd.close());
beforeEach(() => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  zd.requests.length = 0;
  zd.users.clear();
  zd.organizations.clear();
  zd.tickets.clear();
  zd.state.limiter.reset();
  Object.assign(zd.state.limiter, { max: 700, windowMs: 60_000 });
  delete zd.state.jobEnd;
});

describe("Zendesk destination", () => {
  it("takes the reference's settings and finds the API host from the subdomain alone", () => {
    const definition = getDefinition("Zendesk", "destination")!;
    expect(definition).toMatchObject({ category: "Customer Support", writeModes: ["upsert"] });
    expect(validateConfiguration(definition, { username: EMAIL, password: "pw", subdomain: "https://acme" })).toEqual([]);
    expect(validateConfiguration(definition, { username: EMAIL }).map((e) => e.path)).toEqual(["password", "subdomain"]);
    for (const given of ["https://acme", "acme", "acme.zendesk.com", "https://Acme.zendesk.com/"]) expect(zendeskBaseUrl({ subdomain: given })).toBe("https://acme.zendesk.com/api/v2");
    for (const given of ["https://evil.example/x", "acme.evil.example", "a b", "", "https://acme@evil.example"]) expect(() => zendeskBaseUrl({ subdomain: given })).toThrow(/not a Zendesk subdomain/);
  });

  it("checks the credentials over HTTP Basic (email/token and the API token)", async () => {
    expect(await zendeskDestination.check(config())).toEqual({ ok: true, details: "Connected to Zendesk as Emulated Agent (admin)." });
    expect(Buffer.from(String(zd.requests[0].headers.authorization).slice(6), "base64").toString()).toBe(`${EMAIL}/token:${TOKEN}`);
    expect(await zendeskDestination.check(config({ password: "wrong" }))).toEqual({ ok: false, details: "Zendesk rejected the credentials. Zendesk answered HTTP 401: Couldn't authenticate you" });
  });

  it("discovers the reference's tickets and users, and organizations", () => {
    expect(Object.keys(streams)).toEqual(["tickets", "users", "organizations"]);
    expect(streams.users).toMatchObject({ batch_support: true, batch_size: 100, primary_key: ["email"] });
    expect(Object.keys((streams.tickets.json_schema as { properties: Row }).properties)).toEqual(expect.arrayContaining(["subject", "description", "status", "priority", "requester_id", "assignee_id", "tags"]));
  });

  it("upserts users in bulk and reads each user's result from the job status", async () => {
    zd.users.set(7, { id: 7, name: "Old", email: "user2@example.com", external_id: "u-2" });
    const batch = records(4, person);
    batch[2].payload.email = "not-an-email";
    batch[3].payload = { name: "No key" };
    const outcomes = await zendeskDestination.write(config(), batch, { stream: streams.users, batch: true });
    expect(outcomes.map((o) => [o.key, o.ok])).toEqual([["4", false], ["1", true], ["2", true], ["3", false]]);
    expect(outcomes[0].error).toBe("The record has no external_id or email, which Zendesk matches users on.");
    expect(outcomes[3].error).toBe("Zendesk refused the record: UserCreateError: Email: not-an-email is not properly formatted");
    expect(outcomes[3].retryable).toBe(false);
    expect(posts("/users/create_or_update_many")).toHaveLength(1);
    expect(parseBody(posts("/users/create_or_update_many")[0])).toEqual({ users: [person(1), person(2), { ...person(3), email: "not-an-email" }] });
    // The job was followed until it completed ("working" first).
    expect(zd.requests.filter((r) => r.url.startsWith("/api/v2/job_statuses/"))).toHaveLength(2);
    expect(zd.users.get(7)).toMatchObject({ name: "User 2" });
    expect([...zd.users.values()].map((u) => u.email).sort()).toEqual(["user1@example.com", "user2@example.com"]);
  });

  it("keeps a failed job's long message, and a result's long details, short in every record's error", async () => {
    // A job's message goes into each of its records: 512 KiB of it (an answer the client still reads whole) for 100 users would be 50 MiB.
    zd.state.jobEnd = { status: "failed", message: "m".repeat(512 * 1024) };
    const failedJob = await zendeskDestination.write(config(), records(100, person), { stream: streams.users, batch: true });
    expect(failedJob.every((o) => !o.ok && o.error !== undefined && o.error.length < 2500)).toBe(true);
    expect(failedJob[0].error).toMatch(/^Zendesk refused the record: Zendesk job V3-\d+ ended failed: m+… \(\d+ more characters\)\.$/);
    zd.state.jobEnd = { status: "completed", results: [{ index: 0, status: "Failed", error: "E".repeat(300_000), details: "D".repeat(300_000) }] };
    const [one] = await zendeskDestination.write(config(), records(1, person), { stream: streams.users, batch: true });
    expect(one.ok).toBe(false);
    expect(one.error!.length).toBeLessThan(5000);
    expect(JSON.stringify(one).length).toBeLessThan(20_000);
  });

  it("sends at most 100 users a request", async () => {
    const { outcomes } = await loadThrough(zendeskDestination, config(), streams.users, records(250, person));
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(posts("/users/create_or_update_many").map((r) => (parseBody(r) as { users: unknown[] }).users.length)).toEqual([100, 100, 50]);
    expect(zd.users.size).toBe(250);
  });

  it("upserts organizations one at a time by external_id; Zendesk's validation errors fail the record alone", async () => {
    const org = (i: number): Row => ({ external_id: `o-${i}`, name: `Org ${i}`, domain_names: [`org${i}.example`] });
    await zendeskDestination.write(config(), records(1, org), { stream: streams.organizations, batch: true });
    const batch = records(3, org);
    batch[0].payload.details = "renamed";
    batch[1].payload.name = "Org 1";
    batch[2].payload = { name: "No key" };
    const outcomes = await zendeskDestination.write(config(), batch, { stream: streams.organizations, batch: true });
    expect(outcomes.map((o) => [o.key, o.ok, o.status])).toEqual([
      ["3", false, undefined],
      ["1", true, 200],
      ["2", false, 422],
    ]);
    expect(outcomes[2].error).toBe("Zendesk answered HTTP 422: RecordInvalid: Record validation errors (Name: has already been taken)");
    expect(zd.organizations.size).toBe(1);
    expect([...zd.organizations.values()][0]).toMatchObject({ external_id: "o-1", details: "renamed" });
    expect(posts("/organizations/create_or_update")).toHaveLength(3);
  });

  it("creates tickets with the description as first comment, and updates those that carry an id", async () => {
    zd.users.set(5, { id: 5, name: "Req", email: "req@example.com" });
    const created = await zendeskDestination.write(
      config(),
      [
        { key: "a", action: "upsert", payload: { subject: "Printer", description: "It is on fire", priority: "high", requester_id: "5", tags: ["hw"], created_at: "2024-01-01" } },
        { key: "b", action: "upsert", payload: { subject: "Bad", description: "x", status: "exploded" } },
        { key: "c", action: "upsert", payload: { subject: "No description" } },
      ],
      { stream: streams.tickets, batch: true },
    );
    expect(created.map((o) => o.ok)).toEqual([false, true, false]);
    expect(created[0].error).toContain("no description");
    expect(created[2].error).toBe("Zendesk answered HTTP 422: RecordInvalid: Record validation errors (Status: exploded is not a valid status)");
    const body = parseBody(posts("/tickets")[0]) as { ticket: Row };
    // The requester id went as the number it is; read-only timestamps stayed behind.
    expect(body).toEqual({ ticket: { subject: "Printer", priority: "high", requester_id: 5, tags: ["hw"], comment: { body: "It is on fire" } } });
    const [ticket] = [...zd.tickets.values()];
    expect(ticket).toMatchObject({ subject: "Printer", description: "It is on fire" });
    const updated = await zendeskDestination.write(
      config(),
      [
        { key: "a", action: "upsert", payload: { id: ticket.id, status: "solved", description: "It is on fire" } },
        { key: "z", action: "upsert", payload: { id: 999999, status: "solved" } },
      ],
      { stream: streams.tickets, batch: true },
    );
    expect(updated.map((o) => [o.ok, o.status])).toEqual([
      [true, 200],
      [false, 404],
    ]);
    expect(updated[1].error).toBe("Zendesk answered HTTP 404: RecordNotFound: Not found");
    const put = zd.requests.find((r) => r.method === "PUT")!;
    expect([put.url, parseBody(put)]).toEqual([`/api/v2/tickets/${String(ticket.id)}`, { ticket: { status: "solved" } }]);
    expect(zd.tickets.get(ticket.id as number)).toMatchObject({ status: "solved", comments: [{ body: "It is on fire" }] });
  });

  it("upserts tickets by external_id: the one ticket that has it is updated, a shared one fails the record", async () => {
    const ext = (i: number, subject: string): Row => ({ external_id: `t-${i}`, subject, description: `Issue ${i}`, priority: "low" });
    const first = await zendeskDestination.write(config(), records(2, (i) => ext(i, "First")), { stream: streams.tickets, batch: true });
    expect(first.map((o) => o.ok)).toEqual([true, true]);
    zd.tickets.set(77, { id: 77, external_id: "t-2", subject: "Twin", description: "x" });
    zd.requests.length = 0;
    const again = await zendeskDestination.write(config(), records(3, (i) => ext(i, "Again")), { stream: streams.tickets, batch: true });
    expect(again.map((o) => [o.key, o.ok])).toEqual([["2", false], ["1", true], ["3", true]]);
    expect(again[0].error).toMatch(/^2 tickets have external_id "t-2" \(\d+, 77\); map the ticket id/);
    const [t1] = [...zd.tickets.values()].filter((t) => t.external_id === "t-1");
    expect(t1).toMatchObject({ subject: "Again", description: "Issue 1", comments: [{ body: "Issue 1" }] });
    expect(zd.requests.filter((r) => r.method === "GET").map((r) => r.url)).toEqual(["/api/v2/tickets?external_id=t-1", "/api/v2/tickets?external_id=t-2", "/api/v2/tickets?external_id=t-3"]);
    expect(zd.requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.url}`)).toEqual([`PUT /api/v2/tickets/${String(t1.id)}`, "POST /api/v2/tickets"]);
    expect([...zd.tickets.values()].filter((t) => t.external_id === "t-3")).toHaveLength(1);
  });

  it("honours Retry-After on a 429, and the engine's retry then succeeds", async () => {
    Object.assign(zd.state.limiter, { max: 1, windowMs: 1000 });
    zd.state.retryAfter = "1";
    await zendeskDestination.check(config());
    const [throttled] = await zendeskDestination.write(config(), records(1, person), { stream: streams.users, batch: true });
    expect(throttled).toMatchObject({ ok: false, status: 429, retryable: true, retryAfterSeconds: 1, error: expect.stringContaining("APIRateLimitExceeded") });
    // Through the engine: the bulk request, then two job polls, each may meet a full window and wait.
    Object.assign(zd.state.limiter, { max: 2 });
    zd.state.limiter.reset();
    await zendeskDestination.check(config());
    await zendeskDestination.check(config());
    zd.requests.length = 0;
    const { outcomes } = await loadThrough(zendeskDestination, config(), streams.organizations, records(2, (i) => ({ external_id: `o-${i}`, name: `Org ${i}` })), { maxAttempts: 4 });
    expect(outcomes.map((o) => o.ok)).toEqual([true, true]);
    expect(zd.requests.map((r) => r.method)).toContain("POST");
    expect(zd.organizations.size).toBe(2);
  });

  it("masks the password, keeps it off a new subdomain or base URL, and out of every outcome", async () => {
    const definition = getDefinition("Zendesk", "destination")!;
    expect(maskSecrets(config(), definition)).toMatchObject({ password: SECRET_MASK, username: `${EMAIL}/token` });
    const outcomes = await zendeskDestination.write(config(), records(2, person), { stream: streams.users, batch: true });
    expect(JSON.stringify(outcomes)).not.toContain(TOKEN);
    expect(() => mergeMaskedSecrets({ ...config(), password: SECRET_MASK, subdomain: "https://other" }, config(), definition)).toThrow(SecretTargetChangedError);
    expect(() => mergeMaskedSecrets({ ...config(), password: SECRET_MASK, base_url: "https://elsewhere.example/api/v2" }, config(), definition)).toThrow(SecretTargetChangedError);
  });

  it("never shows the credential as it travels (Basic, base64) when a server echoes the request", async () => {
    const echo = await startEmulator((req, res) => json(res, 400, { error: { title: "Echo", message: JSON.stringify(req.headers) } }));
    try {
      const basic = Buffer.from(`${EMAIL}/token:${TOKEN}`).toString("base64");
      const checked = await zendeskDestination.check(config({ base_url: `${echo.url}/api/v2` }));
      expect(checked.ok).toBe(false);
      expect(checked.details).toContain("Echo");
      const [written] = await zendeskDestination.write(config({ base_url: `${echo.url}/api/v2` }), records(1, person), { stream: streams.users, batch: true });
      expect(written.ok).toBe(false);
      for (const text of [checked.details, written.error ?? ""]) {
        expect(text).not.toContain(basic);
        expect(text).not.toContain(TOKEN);
      }
    } finally {
      await echo.close();
    }
  });

  it("obeys the outbound network policy", async () => {
    process.env.OUTBOUND_ALLOW_PRIVATE = "";
    const [outcome] = await zendeskDestination.write(config(), records(1, person), { stream: streams.users, batch: true });
    expect(outcome).toMatchObject({ ok: false, retryable: false, error: expect.stringMatching(/private, loopback or link-local/) });
    expect(zd.requests).toHaveLength(0);
  });
});

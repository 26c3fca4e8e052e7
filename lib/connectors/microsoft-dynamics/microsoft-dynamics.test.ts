// Microsoft Dynamics destination against the Entra ID + Dataverse Web API emulator
// (tests/emulators/microsoft-dynamics.ts) on 127.0.0.1.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Row, Stream } from "../types";
import { getDefinition, maskSecrets, mergeMaskedSecrets, SECRET_MASK, SecretTargetChangedError, validateConfiguration } from "../registry";
import { loadThrough, parseBody, records } from "@/tests/emulators/common";
import { startDynamicsEmulator } from "@/tests/emulators/microsoft-dynamics";
import { microsoftDynamicsDestination as dynamics, environmentUrl } from "./destination";

const TENANT = "6f1c2a4e-0000-4000-8000-00000000c0de";
const APP = "a1b2c3d4-0000-4000-8000-000000000app";
const SECRET = "Xyz8Q~emulator-client-secret-0123456789";
let dv: Awaited<ReturnType<typeof startDynamicsEmulator>>;
let accounts: Stream;
const config = (overrides: Row = {}): Row => ({
  instance_url: "contoso",
  tenant_id: TENANT,
  application_id: APP,
  client_secret: SECRET,
  upsert_key: "accountnumber",
  base_url: dv.url,
  login_url: dv.url,
  timeout: 10,
  ...overrides,
});
const account = (i: number): Row => ({ accountnumber: `A-${i}`, name: `Account ${i}`, numberofemployees: 10 * i });
const writes = () => dv.requests.filter((r) => r.url.startsWith("/api/data/v9.2/accounts"));

beforeAll(async () => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  dv = await startDynamicsEmulator({ tenantId: TENANT, clientId: APP, clientSecret: SECRET, organization: "contoso" });
  accounts = (await dynamics.discover(config())).streams.find((s) => s.name === "accounts")!;
});
afterAll(() => dv.close());
beforeEach(() => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  dv.requests.length = 0;
  for (const table of dv.rows.values()) table.clear();
  dv.window.max = 6000;
  dv.window.windowMs = 300_000;
  dv.window.reset();
});

describe("Microsoft Dynamics destination", () => {
  it("gets a token from Entra ID with the client credentials for the environment's scope, then asks WhoAmI", async () => {
    expect(await dynamics.check(config({ client_secret: `${SECRET}-check` }))).toMatchObject({ ok: false, details: "Microsoft Dynamics refused the client credentials (invalid_client: AADSTS7000215: Invalid client secret provided.)." });
    expect(await dynamics.check(config())).toEqual({ ok: true, details: "Connected to Dataverse as application user 00000000-0000-0000-0000-00000000a11c." });
    const token = dv.requests.find((r) => r.url === `/${TENANT}/oauth2/v2.0/token`);
    expect(Object.fromEntries(new URLSearchParams(token?.body))).toEqual({ grant_type: "client_credentials", client_id: APP, client_secret: `${SECRET}-check`, scope: "https://contoso.crm.dynamics.com/.default" });
    const whoami = dv.requests.find((r) => r.url === "/api/data/v9.2/WhoAmI");
    expect(whoami?.headers).toMatchObject({ "odata-version": "4.0", authorization: expect.stringMatching(/^Bearer eyJ0eXAi\./) });
    expect(await dynamics.check(config({ tenant_id: "other-tenant.example", application_id: "x" }))).toMatchObject({ ok: false, details: expect.stringContaining("AADSTS900023") });
  });

  it("names the environment from the organization name, as the reference takes it, or a URL", () => {
    expect(environmentUrl({ instance_url: "contoso" })).toBe("https://contoso.crm.dynamics.com");
    expect(environmentUrl({ instance_url: "contoso.crm4.dynamics.com" })).toBe("https://contoso.crm4.dynamics.com");
    expect(environmentUrl({ instance_url: "https://contoso.crm.dynamics.com/" })).toBe("https://contoso.crm.dynamics.com");
  });

  it("discovers the reference's tables, one record a request, keyed by the alternate key", async () => {
    const catalog = await dynamics.discover(config());
    expect(catalog.streams.map((s) => s.name)).toEqual(["accounts", "contacts", "opportunities"]);
    expect(accounts).toMatchObject({ batch_support: false, batch_size: 1, request_method: "PATCH", primary_key: ["accountnumber"] });
    expect(dynamics.definition.writeModes).toEqual(["upsert", "insert"]);
  });

  it("upserts by alternate key: created, then updated in place; each record's answer is its outcome", async () => {
    const { outcomes } = await loadThrough(dynamics, config(), accounts, records(3, account));
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(writes().map((r) => `${r.method} ${r.url}`)).toEqual([
      "PATCH /api/data/v9.2/accounts(accountnumber='A-1')",
      "PATCH /api/data/v9.2/accounts(accountnumber='A-2')",
      "PATCH /api/data/v9.2/accounts(accountnumber='A-3')",
    ]);
    expect(parseBody(writes()[0])).toEqual(account(1));
    expect(outcomes[0].log?.response.body).toEqual({ status: 204, "OData-EntityId": expect.stringMatching(/\/api\/data\/v9\.2\/accounts\([0-9a-f-]{36}\)$/) });
    const again = await loadThrough(dynamics, config(), accounts, [{ key: "1", action: "upsert", payload: { accountnumber: "A-1", name: "Renamed" } }]);
    expect(again.outcomes[0].ok).toBe(true);
    expect(dv.rows.get("accounts")?.size).toBe(3);
    expect([...dv.rows.get("accounts")!.values()].find((r) => r.accountnumber === "A-1")?.name).toBe("Renamed");
  });

  it("fails only the records Dataverse refuses, with its message and code", async () => {
    const batch = records(5, account);
    batch[1].payload.numberofemployees = "many";
    batch[2].payload.nickname = "Acme";
    batch[3].payload = { accountnumber: "O'Brien & Sons/1", name: "Quoted" };
    delete batch[4].payload.accountnumber;
    const { outcomes } = await loadThrough(dynamics, config(), accounts, batch);
    expect(outcomes.map((o) => [o.key, o.ok])).toEqual([["1", true], ["2", false], ["3", false], ["4", true], ["5", false]]);
    expect(outcomes[1]).toMatchObject({ status: 400, retryable: false, error: "Microsoft Dynamics answered HTTP 400: Cannot convert the literal 'many' to the expected type 'Edm.Int32'. (0x80048d19)" });
    expect(outcomes[2].error).toContain("Invalid property 'nickname'");
    expect(outcomes[4].error).toBe("The record has no value in accountnumber, the alternate key Dataverse upserts on.");
    // A quote is doubled and the value percent-encoded in the key segment.
    expect(writes()[3].url).toBe("/api/data/v9.2/accounts(accountnumber='O''Brien%20%26%20Sons%2F1')");
    expect([...dv.rows.get("accounts")!.values()].map((r) => r.accountnumber)).toEqual(["A-1", "O'Brien & Sons/1"]);
  });

  it("waits as Retry-After says when the service protection limits answer 429", async () => {
    // Two requests a second, as a sliding limit would allow (Dataverse: 6,000 per five minutes).
    dv.window.max = 2;
    dv.window.windowMs = 1000;
    const { outcomes } = await loadThrough(dynamics, config(), accounts, records(3, account), { maxAttempts: 3 });
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(writes().map((r) => r.url.slice(-6))).toEqual(["'A-1')", "'A-2')", "'A-3')", "'A-3')"]);
    dv.window.reset();
    dv.window.max = 0;
    const [throttled] = await dynamics.write(config(), records(1, account), { stream: accounts, batch: false });
    expect(throttled).toMatchObject({ ok: false, status: 429, retryable: true, retryAfterSeconds: 1, error: expect.stringContaining("(0x80072322)") });
  });

  it("creates rows with POST in insert mode, and refuses an upsert without an alternate key", async () => {
    const outcomes = await dynamics.write(config({ upsert_key: "" }), records(1, account, "insert"), { stream: accounts, batch: false });
    expect(outcomes[0]).toMatchObject({ ok: true, status: 204 });
    expect(writes()[0]).toMatchObject({ method: "POST", url: "/api/data/v9.2/accounts" });
    const [missing] = await dynamics.write(config({ upsert_key: "" }), records(1, (i) => ({ accountnumber: `B-${i}` }), "insert"), { stream: accounts, batch: false });
    expect(missing.error).toContain("Required field 'name' is missing");
    const [noKey] = await dynamics.write(config({ upsert_key: "" }), records(1, account), { stream: accounts, batch: false });
    expect(noKey.error).toMatch(/^Name the table's alternate key \(upsert_key\)/);
  });

  it("fetches a new token after a 401 (an expired session) on the retry", async () => {
    await dynamics.check(config());
    const issued = dv.state.tokensIssued;
    dv.expireTokens();
    const { outcomes } = await loadThrough(dynamics, config(), accounts, records(1, account));
    expect(outcomes[0].ok).toBe(true);
    expect(writes().map((r) => r.method)).toEqual(["PATCH", "PATCH"]);
    expect(dv.state.tokensIssued).toBe(issued + 1);
  });

  it("takes the reference's settings unchanged, masks the secrets and keeps them off a new URL", () => {
    const definition = getDefinition("MicrosoftDynamics", "destination")!;
    const reference = { instance_url: "contoso", tenant_id: TENANT, application_id: APP, client_secret: SECRET };
    expect(validateConfiguration(definition, reference)).toEqual([]);
    expect(validateConfiguration(definition, { instance_url: "contoso" }).map((e) => e.path)).toEqual(["tenant_id", "application_id", "client_secret"]);
    expect(maskSecrets(reference, definition)).toEqual({ instance_url: "contoso", tenant_id: SECRET_MASK, application_id: APP, client_secret: SECRET_MASK });
    for (const target of ["instance_url", "login_url", "base_url"]) {
      expect(() => mergeMaskedSecrets({ ...config(), client_secret: SECRET_MASK, tenant_id: SECRET_MASK, [target]: "https://elsewhere.example" }, config(), definition), target).toThrow(SecretTargetChangedError);
    }
  });

  it("never puts the client secret or the token in an outcome, and obeys the network policy", async () => {
    const outcomes = await dynamics.write(config(), records(2, (i) => ({ ...account(i), nickname: "x" })), { stream: accounts, batch: false });
    const text = JSON.stringify(outcomes);
    expect(text).not.toContain(SECRET);
    expect(text).not.toMatch(/eyJ0eXAi\./);
    process.env.OUTBOUND_ALLOW_PRIVATE = "";
    dv.requests.length = 0;
    const [blocked] = await dynamics.write(config({ client_secret: "another-secret-not-cached" }), records(1, account), { stream: accounts, batch: false });
    expect(blocked).toMatchObject({ ok: false, retryable: false, error: expect.stringMatching(/private, loopback or link-local/) });
    expect(dv.requests).toHaveLength(0);
  });
});

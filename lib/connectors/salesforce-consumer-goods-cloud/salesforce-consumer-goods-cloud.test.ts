// Salesforce Consumer Goods Cloud source and destination against the Salesforce REST API emulator
// (tests/emulators/salesforce.ts) on 127.0.0.1: the username-password login, describe, sObject
// Collections writes and SOQL reads with nextRecordsUrl paging.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Row, Stream } from "../types";
import { getDefinition, maskSecrets, mergeMaskedSecrets, SECRET_MASK, SecretTargetChangedError } from "../registry";
import { loadThrough, parseBody, records } from "@/tests/emulators/common";
import { CONSUMER_GOODS_OBJECTS, startSalesforceEmulator } from "@/tests/emulators/salesforce";
import { consumerGoodsDestination as dest } from "./destination";
import { consumerGoodsSource as source } from "./source";
import { readSoql, soqlLiteral } from "./soql";

const CLIENT_ID = "3MVG9cgcEmulatorConsumerKey";
const SECRET = "cgc-consumer-secret-0123456789";
const PASSWORD = "Tr0ub4dor&3-field-rep";
const SECURITY_TOKEN = "sEcUrItYtOkEn0123456789";
let sf: Awaited<ReturnType<typeof startSalesforceEmulator>>;
let stores: Stream;
let login: string | undefined;

const config = (overrides: Row = {}): Row => ({
  username: "integration@acme-retail.com",
  password: PASSWORD,
  host: "login.salesforce.com",
  client_id: CLIENT_ID,
  client_secret: SECRET,
  security_token: SECURITY_TOKEN,
  base_url: sf.url,
  timeout: 5,
  ...overrides,
});
const store = (i: number): Row => ({ Name: `Store ${i}`, StoreType: "Supermarket", Email__c: `store${i}@acme-retail.com` });

async function readAll(options: { query: string; batchSize: number; cursorField?: string; cursorValue?: string | null }): Promise<Row[][]> {
  const batches: Row[][] = [];
  for await (const batch of source.read(config(), options)) batches.push(batch);
  return batches;
}

beforeAll(async () => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  sf = await startSalesforceEmulator({ clientId: CLIENT_ID, clientSecret: SECRET, user: { username: "integration@acme-retail.com", password: PASSWORD, securityToken: SECURITY_TOKEN }, objects: CONSUMER_GOODS_OBJECTS, queryBatchSize: 200 });
  stores = (await dest.discover(config())).streams.find((s) => s.name === "RetailStore")!;
  login = sf.requests.find((r) => r.url === "/services/oauth2/token")?.body;
});
afterAll(() => sf.close());
beforeEach(() => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  sf.requests.length = 0;
  sf.control.throttleNext = 0;
  sf.control.throttled = 0;
  sf.records("RetailStore").clear();
});

describe("Salesforce Consumer Goods Cloud destination", () => {
  it("logs in with username, password + security token and discovers the org's Consumer Goods objects", async () => {
    expect(await dest.check(config())).toEqual({ ok: true, details: "Connected to Salesforce Consumer Goods Cloud." });
    // The token is cached: the first login (discovery, before the tests) is the one to look at.
    const token = new URLSearchParams(login);
    expect(Object.fromEntries(token)).toMatchObject({ grant_type: "password", username: "integration@acme-retail.com", password: `${PASSWORD}${SECURITY_TOKEN}` });
    const { streams } = await dest.discover(config());
    // User is not in this org: not offered, as the reference skips it.
    expect(streams.map((s) => s.name)).toEqual(["Account", "Visit", "RetailStore", "RecordType"]);
    expect(stores).toMatchObject({ primary_key: ["Id"], batch_size: 200, request_method: "PATCH" });
    expect(Object.keys(stores.json_schema.properties as Row)).toEqual(["Id", "Name", "AccountId", "StoreType", "Email__c"]);
    const refused = await dest.check(config({ security_token: "stale-token" }));
    expect(refused).toEqual({ ok: false, details: "Salesforce Consumer Goods Cloud refused the username and password (invalid_grant: authentication failure)." });
  });

  it("upserts on Id (new records created, known ones updated); each refused record fails alone", async () => {
    const created = await dest.write(config(), records(3, store), { stream: stores, batch: true });
    expect(created.every((o) => o.ok)).toBe(true);
    const [id] = [...sf.records("RetailStore").keys()];
    const batch = [
      { key: "a", action: "upsert" as const, payload: { Id: id, Name: "Store 1 (renamed)" } },
      { key: "b", action: "upsert" as const, payload: { Name: "Store 9", Email__c: "not-an-email" } },
      { key: "c", action: "upsert" as const, payload: { StoreType: "Kiosk" } },
      { key: "d", action: "upsert" as const, payload: store(4) },
    ];
    const outcomes = await dest.write(config(), batch, { stream: stores, batch: true });
    expect(outcomes.map((o) => [o.key, o.ok])).toEqual([["a", true], ["b", false], ["c", false], ["d", true]]);
    expect(outcomes[1].error).toBe("Salesforce Consumer Goods Cloud refused the record: INVALID_EMAIL_ADDRESS: Email__c: invalid email address: not-an-email (fields: Email__c)");
    expect(outcomes[2].error).toBe("Salesforce Consumer Goods Cloud refused the record: REQUIRED_FIELD_MISSING: Required fields are missing: [Name] (fields: Name)");
    expect(sf.records("RetailStore").get(id)?.Name).toBe("Store 1 (renamed)");
    const write = sf.requests.filter((r) => r.url.includes("/composite/")).at(-1)!;
    expect(write).toMatchObject({ method: "PATCH", url: "/services/data/v59.0/composite/sobjects/RetailStore/Id" });
    expect((parseBody(write) as { records: Row[] }).records[3]).toEqual({ attributes: { type: "RetailStore" }, ...store(4) });
  });

  it("waits out a 429 by its Retry-After through the engine's loader, 200 records a request", async () => {
    sf.control.throttleNext = 1;
    const { outcomes } = await loadThrough(dest, config(), stores, records(250, store));
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(sf.control.throttled).toBe(1);
    expect(sf.records("RetailStore").size).toBe(250);
    expect(sf.requests.filter((r) => r.url.includes("/composite/") && r.method === "PATCH").map((r) => (parseBody(r) as { records: unknown[] }).records.length).filter((n) => n > 0)).toContain(200);
  });

  it("masks password, security token and client secret, and keeps them out of outcomes", async () => {
    expect(maskSecrets(config(), dest.definition)).toMatchObject({ password: SECRET_MASK, security_token: SECRET_MASK, client_secret: SECRET_MASK, username: "integration@acme-retail.com", host: "login.salesforce.com" });
    const outcomes = await dest.write(config(), records(2, store), { stream: stores, batch: true });
    for (const secret of [PASSWORD, SECURITY_TOKEN, SECRET]) expect(JSON.stringify(outcomes)).not.toContain(secret);
    // The password goes to the login host: a masked one never follows a new host.
    for (const definition of [dest.definition, source.definition]) {
      expect(() => mergeMaskedSecrets({ ...config(), password: SECRET_MASK, host: "evil.example.com" }, config(), definition)).toThrow(SecretTargetChangedError);
    }
    expect(getDefinition("SalesforceConsumerGoodsCloud", "destination")).toMatchObject({ category: "Retail" });
    expect(getDefinition("SalesforceConsumerGoodsCloud", "source")).toMatchObject({ category: "Retail", subCategory: "Relational Database" });
  });
});

describe("Salesforce Consumer Goods Cloud source", () => {
  beforeAll(() => {
    sf.records("Account").clear();
    sf.seed("Account", Array.from({ length: 450 }, (_, i) => ({ Name: `Account ${i + 1}`, AccountNumber: `A-${i + 1}`, AnnualRevenue: 1000.5 + i, NumberOfEmployees: i })));
  });

  it("checks the login and discovers the objects with their field types", async () => {
    expect(await source.check(config())).toEqual({ ok: true, details: "Connected to Salesforce Consumer Goods Cloud; objects Account, Visit, RetailStore, RecordType are there." });
    const { streams } = await source.discover(config());
    const account = streams.find((s) => s.name === "Account")!;
    expect(account.json_schema.properties).toMatchObject({ NumberOfEmployees: { type: ["integer", "null"] }, AnnualRevenue: { type: ["number", "null"] }, SystemModstamp: { type: ["string", "null"], format: "date-time" } });
    const bad = await source.check(config({ password: "wrong" }));
    expect(bad.ok).toBe(false);
    expect(bad.details).not.toContain(SECURITY_TOKEN);
  });

  it("reads a SOQL model page by page (nextRecordsUrl) in batches, attributes dropped", async () => {
    const batches = await readAll({ query: "SELECT Id, Name, AnnualRevenue FROM Account", batchSize: 200 });
    expect(batches.map((b) => b.length)).toEqual([200, 200, 50]);
    expect(batches[0][0]).toEqual({ Id: expect.stringMatching(/^a\d+/), Name: "Account 1", AnnualRevenue: 1000.5 });
    expect(sf.requests.filter((r) => r.url.includes("/query")).length).toBe(3);
  });

  it("reads incrementally on SystemModstamp: only rows at or after the cursor, in its order", async () => {
    const all = (await readAll({ query: "SELECT Id, Name, SystemModstamp FROM Account WHERE NumberOfEmployees >= 0", batchSize: 500, cursorField: "SystemModstamp" })).flat();
    expect(all).toHaveLength(450);
    const last = String(all.at(-1)!.SystemModstamp);
    const [id] = [...sf.records("Account").keys()];
    sf.touch("Account", id, { Name: "Account 1 (moved)" });
    const changed = (await readAll({ query: "SELECT Id, Name, SystemModstamp FROM Account WHERE NumberOfEmployees >= 0", batchSize: 500, cursorField: "SystemModstamp", cursorValue: last })).flat();
    expect(changed.map((r) => r.Name)).toEqual(["Account 450", "Account 1 (moved)"]);
    const soql = new URL(sf.requests.filter((r) => r.url.includes("/query?")).at(-1)!.url, "http://x").searchParams.get("q");
    expect(soql).toBe(`SELECT Id, Name, SystemModstamp FROM Account WHERE (NumberOfEmployees >= 0) AND SystemModstamp >= ${soqlLiteral(last)} ORDER BY SystemModstamp ASC`);
  });

  it("previews at most the limit, and waits out a 429", async () => {
    sf.control.throttleNext = 1;
    const preview = await source.query!(config(), "SELECT Id, Name, NumberOfEmployees FROM Account", 5);
    expect(preview.rows).toHaveLength(5);
    expect(preview.columns).toEqual([{ name: "Id", type: "string" }, { name: "Name", type: "string" }, { name: "NumberOfEmployees", type: "number" }]);
    expect(sf.control.throttled).toBe(1);
  }, 15_000);

  it("refuses what is not one SOQL SELECT, and SOQL errors come back with Salesforce's reason", async () => {
    expect(() => source.checkQuery!("DELETE FROM Account")).toThrow(/one SOQL SELECT/);
    expect(() => readSoql("SELECT Id FROM Account ORDER BY Name", "SystemModstamp", null)).toThrow(/cannot have ORDER BY/);
    expect(soqlLiteral("O'Brien")).toBe("'O\\'Brien'");
    expect(soqlLiteral("2024-03-01T09:00:01.000+0000")).toBe("2024-03-01T09:00:01Z");
    await expect(readAll({ query: "SELECT Nope FROM Account", batchSize: 10 })).rejects.toThrow("Salesforce Consumer Goods Cloud answered HTTP 400: INVALID_FIELD: No such column 'Nope' on entity 'Account'.");
  });

  it("sends the token only to an https instance_url or the login host's own origin", async () => {
    // A plain-http instance elsewhere is not followed: requests stay on the login host.
    sf.control.instanceUrl = "http://instance.example.test";
    try {
      // The cached session is refused, so the read logs in again and gets the answer above.
      sf.expireTokens();
      const issued = sf.state.tokensIssued;
      const rows = (await readAll({ query: "SELECT Id FROM Account LIMIT 2", batchSize: 10 })).flat();
      expect(rows).toHaveLength(2);
      expect(sf.state.tokensIssued).toBe(issued + 1);
      expect(sf.requests.at(-1)?.url).toMatch(/^\/services\/data\/v59\.0\/query\?/);
    } finally {
      sf.control.instanceUrl = undefined;
    }
  });

  it("logs in again when the session expired", async () => {
    await readAll({ query: "SELECT Id FROM Account LIMIT 1", batchSize: 10 });
    const issued = sf.state.tokensIssued;
    sf.expireTokens();
    const rows = (await readAll({ query: "SELECT Id FROM Account LIMIT 1", batchSize: 10 })).flat();
    expect(rows).toHaveLength(1);
    expect(sf.state.tokensIssued).toBe(issued + 1);
  });
});

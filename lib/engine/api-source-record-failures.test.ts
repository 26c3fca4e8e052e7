// The HTTP-API sources through the engine into PostgreSQL, each against its emulator (tests/emulators/*)
// behind a throttling proxy (tests/support/throttling-proxy.ts): one read request in the middle of
// the read is answered 429 with Retry-After (in the vendor's error shape) and must be waited out and
// repeated, with every row still arriving; the destination table's CHECK constraint refuses one row,
// which fails alone with PostgreSQL's reason; the unchanged re-run sends only that failed row again.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createScratchDatabase, useTestDatabase } from "@/tests/support/db";
import { startDriveEmulator } from "@/tests/emulators/google-drive";
import { makeOrders, startHttpSourceEmulator } from "@/tests/emulators/http-source";
import { startPineconeEmulator } from "@/tests/emulators/pinecone";
import { odooNow, startOdooEmulator } from "@/tests/emulators/odoo";
import { startQdrantEmulator } from "@/tests/emulators/qdrant";
import { startQuickbooksEmulator } from "@/tests/emulators/quickbooks";
import { CONSUMER_GOODS_OBJECTS, startSalesforceEmulator } from "@/tests/emulators/salesforce";
import { credentialsJson, DRIVE_CLIENT_EMAIL, DRIVE_PUBLIC_KEY } from "@/tests/support/google-drive-fixtures";
import { expectOnlyTheRefusedRowFailed, syncRefusingOne } from "@/tests/support/refused-row-sync";
import { startThrottlingProxy, throttledThenRetried, type ThrottlingProxy } from "@/tests/support/throttling-proxy";
import { stopEngine } from "./index";

useTestDatabase();

let destination: { url: string; drop(): Promise<void> };
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  destination = await createScratchDatabase("ds_api_src_fail");
});
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});
afterAll(async () => {
  await stopEngine();
  await destination?.drop();
});

/** An emulator behind a proxy that will throttle the `nth` request matching `path` with a 429. */
async function throttled(emulator: { url: string; close(): Promise<void> }, path: RegExp, nth: number, body: unknown): Promise<ThrottlingProxy> {
  const proxy = await startThrottlingProxy(emulator.url);
  closers.push(() => proxy.close(), () => emulator.close());
  proxy.throttle((_method, url) => path.test(url), nth, { status: 429, headers: { "content-type": "application/json", "retry-after": "1" }, body: JSON.stringify(body) });
  return proxy;
}

/** The proxy answered one read request 429 and the source sent that same request again, which succeeded. */
function expectWaitedOut(proxy: ThrottlingProxy): void {
  const { throttled: answered, retry } = throttledThenRetried(proxy.log);
  expect(answered.status).toBe(429);
  expect(retry?.status).toBe(200);
}

describe("API sources: a 429 mid-read is waited out, a row PostgreSQL refuses fails alone, and an unchanged re-run sends only it", () => {
  it("Http (offset paging)", async () => {
    const TOKEN = "tok-3e9d1c7b5a";
    const api = await startHttpSourceEmulator({ token: TOKEN, orders: makeOrders(300) });
    const proxy = await throttled(api, /^\/v1\/orders\?.*offset=100\b/, 1, { error: "rate_limited", message: "Too many requests." });
    const seen = await syncRefusingOne({
      destinationUrl: destination.url,
      source: {
        connectorName: "Http",
        config: { increment_type: "Offset", http_method: "GET", base_url: proxy.url, path: "/v1/orders", headers: { Authorization: `Bearer ${TOKEN}` }, config: { timeout: "10" }, parse_response: "$.data[0]", offset_param: "offset", limit_param: "limit", page_size: "100" },
      },
      query: "orders",
      primaryKey: "id",
      table: "http_orders",
      columns: "id bigint PRIMARY KEY, customer text, amount numeric(12,2), CONSTRAINT refuse_one CHECK (customer <> 'customer-137@example.com')",
      mapping: { id: "id", customer: "customer", amount: "amount" },
    });
    expectWaitedOut(proxy);
    expectOnlyTheRefusedRowFailed(seen, 300, "137");
  });

  it("IntuitQuickBooks (query pages with STARTPOSITION)", async () => {
    const CLIENT = { clientId: "ABq8client-id", clientSecret: "secret-of-the-app-31", realmId: "9130357766894856", refreshToken: "AB11refresh-token-first" };
    const qb = await startQuickbooksEmulator(CLIENT);
    qb.add("Customer", Array.from({ length: 1200 }, (_, i) => ({ DisplayName: `Customer ${i + 1}`, MetaData: { CreateTime: "2025-01-01T10:00:00-08:00", LastUpdatedTime: "2025-01-01T10:00:00-08:00" } })));
    const proxy = await throttled(qb, /\/query\?/, 2, {
      Fault: { Error: [{ Message: "message=ThrottleExceeded; errorCode=003001; statusCode=429", Detail: "The request limit was reached.", code: "003001" }], type: "ThrottleExceeded" },
      time: "2025-01-01T10:00:00.000-08:00",
    });
    const seen = await syncRefusingOne({
      destinationUrl: destination.url,
      source: {
        connectorName: "IntuitQuickBooks",
        config: { environment: "sandbox", client_id: CLIENT.clientId, client_secret: CLIENT.clientSecret, realm_id: CLIENT.realmId, refresh_token: CLIENT.refreshToken, api_base_url: proxy.url, token_url: qb.tokenUrl },
      },
      query: "SELECT * FROM Customer",
      primaryKey: "Id",
      table: "qb_customers",
      columns: "id text PRIMARY KEY, name text, CONSTRAINT refuse_one CHECK (name <> 'Customer 1137')",
      mapping: { Id: "id", DisplayName: "name" },
    });
    expectWaitedOut(proxy);
    const refused = seen.first.failed[0]?.record as { DisplayName?: string } | undefined;
    expect(refused?.DisplayName).toBe("Customer 1137");
    expectOnlyTheRefusedRowFailed(seen, 1200, seen.first.failed[0].primaryKey);
  });

  it("SalesforceConsumerGoodsCloud (a 429 on a query's next-records page)", async () => {
    const CLIENT = { clientId: "3MVG9cgcEmulatorConsumerKey", clientSecret: "cgc-consumer-secret-0123456789" };
    const USER = { username: "integration@acme-retail.com", password: "Tr0ub4dor&3-field-rep", securityToken: "sEcUrItYtOkEn0123456789" };
    const sf = await startSalesforceEmulator({ ...CLIENT, user: USER, objects: CONSUMER_GOODS_OBJECTS, queryBatchSize: 200 });
    sf.seed("Account", Array.from({ length: 450 }, (_, i) => ({ Name: `Retailer ${i + 1}`, AccountNumber: `R-${i + 1}` })));
    const proxy = await throttled(sf, /\/query\/01g/, 1, [{ message: "Too many requests", errorCode: "TOO_MANY_REQUESTS" }]);
    const seen = await syncRefusingOne({
      destinationUrl: destination.url,
      source: {
        connectorName: "SalesforceConsumerGoodsCloud",
        config: { username: USER.username, password: USER.password, host: "login.salesforce.com", client_id: CLIENT.clientId, client_secret: CLIENT.clientSecret, security_token: USER.securityToken, base_url: proxy.url, timeout: 10 },
      },
      query: "SELECT Id, Name, AccountNumber FROM Account",
      primaryKey: "Id",
      table: "sf_accounts",
      columns: "id text PRIMARY KEY, name text, account_number text, CONSTRAINT refuse_one CHECK (account_number <> 'R-333')",
      mapping: { Id: "id", Name: "name", AccountNumber: "account_number" },
    });
    expectWaitedOut(proxy);
    expect((seen.first.failed[0]?.record as { Name?: string } | undefined)?.Name).toBe("Retailer 333");
    expectOnlyTheRefusedRowFailed(seen, 450, seen.first.failed[0].primaryKey);
  });

  it("GoogleDrive (a 429 on the file's download)", async () => {
    const drive = await startDriveEmulator({ clientEmail: DRIVE_CLIENT_EMAIL, publicKey: DRIVE_PUBLIC_KEY, pageCap: 2 });
    const folder = drive.addFolder("Exports");
    drive.putFile(folder, "contacts.csv", `id,email\n${Array.from({ length: 250 }, (_, i) => `${i + 1},u${i + 1}@example.com`).join("\n")}\n`);
    drive.putFile(folder, "notes.txt", "hello from drive", "text/plain");
    const proxy = await throttled(drive, /alt=media/, 1, {
      error: { code: 429, message: "Rate Limit Exceeded", errors: [{ domain: "usageLimits", reason: "rateLimitExceeded", message: "Rate Limit Exceeded" }] },
    });
    const seen = await syncRefusingOne({
      destinationUrl: destination.url,
      source: { connectorName: "GoogleDrive", config: { data_type: "structured", credentials_json: credentialsJson(proxy.url), folder_name: "Exports", base_url: proxy.url } },
      query: 'SELECT id, email FROM "contacts.csv"',
      primaryKey: "id",
      table: "drive_contacts",
      columns: "id integer PRIMARY KEY, email text, CONSTRAINT refuse_one CHECK (email <> 'u137@example.com')",
      mapping: { id: "id", email: "email" },
    });
    expectWaitedOut(proxy);
    expectOnlyTheRefusedRowFailed(seen, 250, "137");
  });

  it("PineconeDB (a 429 on a list page)", async () => {
    const KEY = "pcsk_emulator_0123456789abcdef";
    const p = await startPineconeEmulator({ apiKey: KEY, indexName: "products", dimension: 3 });
    const space = p.space("catalog");
    for (let i = 1; i <= 420; i++) {
      const id = `sku-${String(i).padStart(4, "0")}`;
      space.set(id, { id, values: [i / 420, 0.5, 1], metadata: { name: `Product ${i}`, price: i } });
    }
    const proxy = await throttled(p, /^\/vectors\/list/, 2, { code: 8, message: "Request failed. You've reached the max request rate for this index.", details: [] });
    const seen = await syncRefusingOne({
      destinationUrl: destination.url,
      source: { connectorName: "PineconeDB", config: { api_key: KEY, region: "us-east-1", index_name: "products", namespace: "catalog", control_plane_url: proxy.url } },
      query: "{}",
      primaryKey: "id",
      table: "pinecone_vectors",
      columns: `id text PRIMARY KEY, metadata jsonb, "values" jsonb, CONSTRAINT refuse_one CHECK (metadata->>'name' <> 'Product 137')`,
      mapping: { id: "id", metadata: "metadata", values: "values" },
    });
    expectWaitedOut(proxy);
    expectOnlyTheRefusedRowFailed(seen, 420, "sku-0137");
  });

  it("Qdrant (a 429 on a scroll page)", async () => {
    const KEY = "qdrant-emulator-key-0123456789";
    const q = await startQdrantEmulator({ apiKey: KEY });
    const c = q.addCollection("articles", 4);
    for (let i = 1; i <= 730; i++) c.points.set(String(i), { id: i, vector: [i / 730, 1, 0, 0.5], payload: { title: `Article ${i}` } });
    const proxy = await throttled(q, /\/points\/scroll/, 2, { status: { error: "Too many requests: rate limit exceeded" }, time: 0.0001 });
    const seen = await syncRefusingOne({
      destinationUrl: destination.url,
      source: { connectorName: "Qdrant", config: { host: proxy.url, api_key: KEY, collection_name: "articles", timeout: 10 } },
      query: "{}",
      primaryKey: "id",
      table: "qdrant_points",
      columns: "id text PRIMARY KEY, payload jsonb, vector jsonb, CONSTRAINT refuse_one CHECK (payload->>'title' <> 'Article 137')",
      mapping: { id: "id", payload: "payload", vector: "vector" },
    });
    expectWaitedOut(proxy);
    expectOnlyTheRefusedRowFailed(seen, 730, "137");
  });
  it("Odoo (a 429 on the read's search_read)", async () => {
    const odoo = await startOdooEmulator({ database: "acme", login: "sync@acme.test", password: "odoo-pass-5c1e" });
    odoo.seed("res.partner", Array.from({ length: 1200 }, (_, k) => ({ id: k + 1, name: `Partner ${k + 1}`, email: `p${k + 1}@example.com`, write_date: odooNow() })));
    // Odoo's one endpoint: the login and the field list come first, then the read's search_read.
    const proxy = await throttled(odoo, /^\/jsonrpc$/, 3, { jsonrpc: "2.0", id: null, error: { code: 429, message: "Too many requests" } });
    const seen = await syncRefusingOne({
      destinationUrl: destination.url,
      source: { connectorName: "Odoo", config: { url: proxy.url, database: "acme", username: "sync@acme.test", password: "odoo-pass-5c1e", timeout: 10 } },
      query: "SELECT id, name, email FROM res.partner",
      primaryKey: "id",
      table: "odoo_partners",
      columns: "id bigint PRIMARY KEY, name text, email text, CONSTRAINT refuse_one CHECK (name <> 'Partner 137')",
      mapping: { id: "id", name: "name", email: "email" },
    });
    // The throttled call was the read's search_read: the login and field list before it reached Odoo once each.
    expect(odoo.calls.slice(0, 3).map((c) => c.modelMethod ?? c.method)).toEqual(["authenticate", "fields_get", "search_read"]);
    expectWaitedOut(proxy);
    expectOnlyTheRefusedRowFailed(seen, 1200, "137");
  });
});

// The IntuitQuickBooks source against tests/emulators/quickbooks.ts (Intuit's query endpoint and
// OAuth 2.0 token endpoint, from their published references): the refresh-token grant with Intuit's
// rotation, discovery of the reference's entities, paged reads (STARTPOSITION/MAXRESULTS of at most
// 1000), incremental reads on MetaData.LastUpdatedTime, 429 throttles honoured, a revoked access
// token renewed, faults as sentences, and no secret in any answer.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Row } from "../types";
import { fingerprint, rowJson } from "@/lib/engine/diff";
import { startQuickbooksEmulator } from "@/tests/emulators/quickbooks";
import { validateConfiguration } from "../registry";
import { forgetQuickbooksTokens } from "./api";
import { quickbooksSourceDefinition } from "./definition";
import { flatten, incrementalStatement, parseModelQuery, quickbooksSource } from "./source";

const CLIENT = { clientId: "ABq8client-id", clientSecret: "secret-of-the-app-31", realmId: "9130357766894856", refreshToken: "AB11refresh-token-first" };
let qb: Awaited<ReturnType<typeof startQuickbooksEmulator>>;

function config(overrides: Row = {}): Row {
  return {
    environment: "sandbox",
    client_id: CLIENT.clientId,
    client_secret: CLIENT.clientSecret,
    realm_id: CLIENT.realmId,
    refresh_token: CLIENT.refreshToken,
    api_base_url: qb.url,
    token_url: qb.tokenUrl,
    ...overrides,
  };
}

async function readAll(query: string, options: Row = {}, cfg = config()): Promise<Row[][]> {
  const batches: Row[][] = [];
  for await (const batch of quickbooksSource.read(cfg, { query, batchSize: 700, ...options })) batches.push(batch);
  return batches;
}

const SECRETS = Object.values(CLIENT);
const expectNoSecret = (text: string) => {
  for (const s of SECRETS) expect(text).not.toContain(s);
};

beforeAll(async () => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  qb = await startQuickbooksEmulator(CLIENT);
  qb.add(
    "Customer",
    Array.from({ length: 2500 }, (_, i) => ({
      DisplayName: `Customer ${i + 1}`,
      Active: i % 10 !== 0,
      Balance: (i % 7) * 10.25,
      PrimaryEmailAddr: { Address: `c${i + 1}@example.com` },
      BillAddr: { City: "Mountain View", Line1: `${i + 1} Main St` },
      MetaData: { CreateTime: "2025-01-01T10:00:00-08:00", LastUpdatedTime: `2025-01-${String((i % 28) + 1).padStart(2, "0")}T10:00:00-08:00` },
    })),
  );
  qb.add("Invoice", [{ DocNumber: "1001", TotalAmt: 150.5, Line: [{ Amount: 150.5 }], CustomerRef: { value: "1", name: "Customer 1" } }]);
  qb.add("Account", [{ Name: "Checking", AccountType: "Bank", CurrentBalance: 1200 }]);
  qb.define("Employee");
  qb.define("TimeActivity");
});
afterAll(async () => qb.close());
beforeEach(() => forgetQuickbooksTokens());

describe("settings and queries", () => {
  it("accepts the reference's settings unchanged", () => {
    const { api_base_url: _a, token_url: _t, ...reference } = { environment: "production", client_id: "a", client_secret: "b", realm_id: "1", refresh_token: "c", api_base_url: "", token_url: "" };
    expect(validateConfiguration(quickbooksSourceDefinition, reference)).toEqual([]);
    expect(validateConfiguration(quickbooksSourceDefinition, { ...reference, environment: "staging" })[0].path).toBe("environment");
  });

  it("reads model queries: LIMIT/OFFSET taken, paging clauses refused, incremental filters added", () => {
    expect(parseModelQuery("select * from Customer where Active = true LIMIT 10 OFFSET 5;")).toEqual({ statement: "select * from Customer where Active = true", entity: "Customer", limit: 10, offset: 5 });
    expect(() => parseModelQuery("SELECT 1 AS one")).toThrow(/QuickBooks query/);
    expect(() => parseModelQuery("SELECT * FROM Customer MAXRESULTS 5")).toThrow(/STARTPOSITION and MAXRESULTS/);
    const model = parseModelQuery("SELECT * FROM Customer WHERE Active = true");
    expect(incrementalStatement(model, { cursorField: "MetaData.LastUpdatedTime", cursorValue: "2025-01-05T00:00:00'x" })).toBe(
      "SELECT * FROM Customer WHERE Active = true AND MetaData.LastUpdatedTime >= '2025-01-05T00:00:00\\'x' ORDERBY MetaData.LastUpdatedTime",
    );
    expect(() => incrementalStatement(model, { cursorField: "x; DROP", cursorValue: "1" })).toThrow(/not a QuickBooks property/);
    expect(flatten({ Id: "1", Active: true, Addr: { City: "X", Geo: { Lat: 1.5 } }, Line: [{ a: 1 }] })).toEqual({ Id: "1", Active: true, "Addr.City": "X", "Addr.Geo.Lat": 1.5 });
  });
});

describe("against the emulator", () => {
  it("check grants a token with the refresh token and queries the company", async () => {
    const result = await quickbooksSource.check(config());
    expect(result).toEqual({ ok: true, details: expect.stringContaining("Connected to QuickBooks Online (sandbox)") });
    const token = qb.requests.filter((r) => r.url === "/oauth2/v1/tokens/bearer").pop()!;
    expect(token.headers.authorization).toBe(`Basic ${Buffer.from(`${CLIENT.clientId}:${CLIENT.clientSecret}`).toString("base64")}`);
    expect(token.body).toBe(`grant_type=refresh_token&refresh_token=${CLIENT.refreshToken}`);
  });

  it("discovery lists the reference's entities with their flattened columns", async () => {
    const catalog = await quickbooksSource.discover(config());
    expect(catalog.streams.map((s) => s.name)).toEqual(["Account", "Customer", "Employee", "Invoice", "TimeActivity"]);
    expect(catalog).toMatchObject({ request_rate_limit: 500, request_rate_limit_unit: "minute", request_rate_concurrency: 10 });
    const customer = catalog.streams[1].json_schema.properties as Record<string, unknown>;
    expect(customer).toMatchObject({ Id: { type: "string" }, Active: { type: "boolean" }, Balance: { type: "number" }, "PrimaryEmailAddr.Address": { type: "string" }, "MetaData.LastUpdatedTime": { type: "string" } });
    expect(Object.keys(catalog.streams[3].json_schema.properties as object)).not.toContain("Line");
    expect(Object.keys(catalog.streams[2].json_schema.properties as object)).toEqual(["Id", "SyncToken", "MetaData.CreateTime", "MetaData.LastUpdatedTime"]);
  });

  it("a read pages by 1000 and streams batches; LIMIT and OFFSET hold", async () => {
    const before = qb.stats.queries.length;
    const batches = await readAll("SELECT * FROM Customer");
    const rows = batches.flat();
    expect(rows).toHaveLength(2500);
    expect(batches.map((b) => b.length)).toEqual([700, 700, 700, 400]);
    expect(rows[0]).toMatchObject({ Id: "1", DisplayName: "Customer 1", Active: false, "BillAddr.City": "Mountain View", "MetaData.LastUpdatedTime": "2025-01-01T10:00:00-08:00" });
    expect(qb.stats.queries.slice(before)).toEqual([
      "SELECT * FROM Customer STARTPOSITION 1 MAXRESULTS 1000",
      "SELECT * FROM Customer STARTPOSITION 1001 MAXRESULTS 1000",
      "SELECT * FROM Customer STARTPOSITION 2001 MAXRESULTS 1000",
    ]);
    const window = (await readAll("SELECT * FROM Customer LIMIT 1500 OFFSET 100")).flat();
    expect(window.map((r) => r.Id)).toEqual(Array.from({ length: 1500 }, (_, i) => String(i + 101)));
    const preview = await quickbooksSource.query!(config(), "SELECT * FROM Customer WHERE Active = false", 3);
    expect(preview.rows.map((r) => r.Id)).toEqual(["1", "11", "21"]);
    expect(preview.columns).toContainEqual({ name: "Balance", type: "number" });
  });

  it("incremental: only entities updated at or after the cursor, in its order", async () => {
    const rows = (await readAll("SELECT * FROM Customer", { cursorField: "MetaData.LastUpdatedTime", cursorValue: "2025-01-27T10:00:00-08:00" })).flat();
    // Days 27 and 28 of the 28 the customers cycle through: 89 customers each.
    expect(rows).toHaveLength(178);
    expect(rows.every((r) => String(r["MetaData.LastUpdatedTime"]) >= "2025-01-27")).toBe(true);
    expect(rows[rows.length - 1]["MetaData.LastUpdatedTime"]).toBe("2025-01-28T10:00:00-08:00");
    expect(qb.stats.queries.slice(-1)[0]).toMatch(/WHERE MetaData.LastUpdatedTime >= '2025-01-27T10:00:00-08:00' ORDERBY MetaData.LastUpdatedTime STARTPOSITION 1 MAXRESULTS 1000$/);
  });

  it("429 ThrottleExceeded is retried after Retry-After", async () => {
    qb.throttleNext(2);
    const before = qb.stats.throttled;
    const rows = (await readAll("SELECT * FROM Invoice")).flat();
    expect(rows).toEqual([expect.objectContaining({ DocNumber: "1001", TotalAmt: 150.5, "CustomerRef.name": "Customer 1" })]);
    expect(qb.stats.throttled - before).toBe(2);
  });

  it("a revoked access token is renewed once; the rotated refresh token is the one used next", async () => {
    await quickbooksSource.check(config());
    const grants = qb.stats.tokenGrants;
    qb.rotateRefreshToken();
    qb.expireAccessTokens();
    const rows = (await readAll("SELECT * FROM Account")).flat();
    expect(rows).toHaveLength(1);
    expect(qb.stats.tokenGrants).toBe(grants + 1);
    const last = qb.requests.filter((r) => r.url === "/oauth2/v1/tokens/bearer").pop()!;
    expect(last.body).toBe(`grant_type=refresh_token&refresh_token=${CLIENT.refreshToken}`);
    // The grant after it presents the rotated token Intuit handed back.
    qb.expireAccessTokens();
    await readAll("SELECT * FROM Account");
    expect(qb.requests.filter((r) => r.url === "/oauth2/v1/tokens/bearer").pop()!.body).toMatch(/refresh_token=qb-refresh-/);
  });

  it("fingerprints are the engine's own", async () => {
    for await (const batch of quickbooksSource.readFingerprinted!(config(), { query: "SELECT * FROM Customer", batchSize: 10, fingerprint: { seed: "seed", primaryKey: "Id" } })) {
      expect(batch.keyValues.slice(0, 2)).toEqual(["1", "2"]);
      expect(batch.fingerprints[3]).toBe(fingerprint("seed", rowJson(batch.row(3))));
      break;
    }
  });

  it("refusals are sentences with Intuit's reason and no secret", async () => {
    const badClient = await quickbooksSource.check(config({ client_secret: "not-the-secret" }));
    expect(badClient).toEqual({ ok: false, details: expect.stringContaining("invalid_client") });
    const badRefresh = await quickbooksSource.check(config({ refresh_token: "revoked-refresh-1" }));
    expect(badRefresh.details).toContain("invalid_grant");
    expect(badRefresh.details).not.toContain("revoked-refresh-1");
    await expect(readAll("SELECT * FROM Vendor")).rejects.toThrow(/QueryValidationError: Invalid context declaration : Vendor/);
    const wrongCompany = await quickbooksSource.check(config({ realm_id: "123" }));
    expect(wrongCompany.details).toContain("ApplicationAuthorizationFailed");
    for (const r of [badClient, badRefresh, wrongCompany]) expectNoSecret(r.details);
  });

  it("an answer that echoes the issued access token, the rotated refresh token or the Basic header never shows them", async () => {
    // Finding 4: these credentials are in no configuration field, so the configured-secret scrub missed them.
    const issued = { access: "hostile-access-token-31337", refresh: "hostile-rotated-refresh-2718" };
    const basic = Buffer.from(`${CLIENT.clientId}:${CLIENT.clientSecret}`).toString("base64");
    let grant: "ok" | "refuse" = "ok";
    const server = createServer((req, res) => {
      res.setHeader("content-type", "application/json");
      if (req.method === "POST") {
        res.statusCode = grant === "ok" ? 200 : 400;
        res.end(JSON.stringify(grant === "ok" ? { access_token: issued.access, refresh_token: issued.refresh, expires_in: 3600 } : { error: "invalid_client", error_description: `bad header ${req.headers.authorization}` }));
        return;
      }
      res.statusCode = 400;
      res.end(JSON.stringify({ Fault: { Error: [{ Message: `token ${issued.access} refused`, Detail: `refresh ${issued.refresh}, client ${basic}` }] } }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const cfg = config({ api_base_url: url, token_url: `${url}/token` });
      const checked = await quickbooksSource.check(cfg);
      expect(checked.details).toContain("refused");
      const read = await readAll("SELECT * FROM Customer", {}, cfg).then(() => "", (err: Error) => err.message);
      expect(read).toContain("refused");
      forgetQuickbooksTokens();
      grant = "refuse";
      const refused = await quickbooksSource.check(cfg);
      expect(refused.details).toContain("invalid_client");
      for (const text of [checked.details, read, refused.details]) {
        for (const secret of [issued.access, issued.refresh, basic]) expect(text).not.toContain(secret);
      }
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it("amounts and numbers keep their exact text (no JSON.parse rounding)", async () => {
    // Finding 8: 1.50 became 1.5 and 12345678901234567890 became 12345678901234567000.
    const server = createServer((req, res) => {
      res.setHeader("content-type", "application/json");
      if (req.method === "POST") res.end(JSON.stringify({ access_token: "exact-access-token-1", expires_in: 3600 }));
      else res.end('{"QueryResponse": {"Customer": [{"Id": "1", "Balance": 1.50, "Ref": {"Big": 12345678901234567890}}], "startPosition": 1, "maxResults": 1}}');
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const [[row]] = await readAll("SELECT * FROM Customer", {}, config({ api_base_url: url, token_url: `${url}/token` }));
      expect([String(row.Balance), String(row["Ref.Big"])]).toEqual(["1.50", "12345678901234567890"]);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it("a metadata address is refused by the outbound policy", async () => {
    const checked = await quickbooksSource.check(config({ token_url: "http://169.254.169.254/token" }));
    expect(checked.ok).toBe(false);
    expect(checked.details).toMatch(/not allowed/);
  });
});

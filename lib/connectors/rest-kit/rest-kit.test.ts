// The REST kit's own rules, with a small vendor against a real node:http server on 127.0.0.1:
// request limits in records and bytes, header auth never leaking, per-record results, retry waits.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Row, WriteRecord } from "../types";
import { json, startHttpServer, streamFor } from "@/tests/support/connectors";
import { planRequests, prepare } from "./batches";
import { defineRestDestination, writeModesOf } from "./define";
import { restSpecification, secretField } from "./fields";
import { accessToken, cachedTokenCount, MAX_TOKEN_LENGTH, TOKEN_CACHE_LIMIT, type ClientCredentials } from "./oauth";
import type { RestDestinationSpec } from "./types";

const KEY = "toy-api-key-1234567890";
let server: Awaited<ReturnType<typeof startHttpServer>>;
const stream = streamFor("items", { batch_size: 100 });
const config = (overrides: Row = {}): Row => ({ api_key: KEY, base_url: server.url, timeout: 2, ...overrides });
const recordsOf = (n: number, size = 10): WriteRecord[] =>
  Array.from({ length: n }, (_, i) => ({ key: String(i + 1), action: "upsert", payload: { id: i + 1, text: "x".repeat(size) } }));

function toy(overrides: Partial<RestDestinationSpec> = {}) {
  return defineRestDestination({
    definition: {
      name: "Toy",
      title: "Toy",
      category: "CRM",
      icon: "/icons/http.svg",
      documentationUrl: "https://example.com/docs",
      connectionSpecification: restSpecification("Toy", "https://api.toy.example", { api_key: secretField("API key", "The key.") }, ["api_key"]),
    },
    baseUrl: "https://api.toy.example",
    auth: { kind: "header", header: "Api-Key", field: "api_key" },
    limits: { maxRecords: 5, maxBytes: 200 },
    rate: { limit: 2, unit: "second", concurrency: 1 },
    writes: {
      upsert: {
        item: (record) => record.payload,
        request: (items) => ({ method: "POST", path: "/items", body: { items } }),
        results: (response, items) => {
          const failed = (response.body as { failed?: number[] } | undefined)?.failed;
          return failed ? items.map((item) => (failed.includes((item as { id: number }).id) ? { ok: false, error: "id refused" } : { ok: true })) : undefined;
        },
      },
    },
    check: { request: () => ({ method: "GET", path: "/me" }) },
    discover: async () => [{ name: "items", json_schema: { type: "object" }, primary_key: ["id"] }],
    errorText: (response) => (response.body as { error?: string } | undefined)?.error,
    ...overrides,
  });
}

beforeAll(async () => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  server = await startHttpServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
  server.setHandler((_req, res) => json(res, 200, { ok: true }));
});

describe("planRequests", () => {
  it("cuts by records and by bytes, in order, and sets aside a record that alone is too big", () => {
    const items = [5, 5, 5, 50, 5, 5].map((n, i) => prepare(i, "x".repeat(n)));
    // Each item is n + 2 bytes as JSON (7, or 52: over the budget alone); overhead 10; budget 40;
    // at most 2 records a request.
    const plan = planRequests(items, 2, 40, 10);
    expect(plan.requests.map((r) => r.map((p) => p.entry))).toEqual([[0, 1], [2, 4], [5]]);
    expect(plan.tooBig.map((p) => p.entry)).toEqual([3]);
    for (const request of plan.requests) expect(10 + request.reduce((n, p) => n + p.size, 0) + request.length - 1).toBeLessThanOrEqual(40);
  });
});

describe("writeModesOf", () => {
  it("offers a mode only where the vendor has an endpoint for it", () => {
    const e = { item: () => 1, request: () => ({ method: "POST" as const, path: "/" }) };
    expect(writeModesOf({ upsert: e })).toEqual(["upsert"]);
    expect(writeModesOf({ upsert: e, insert: e, update: e, delete: e })).toEqual(["upsert", "update", "insert", "mirror"]);
    expect(writeModesOf({ insert: e, delete: e })).toEqual(["insert"]);
  });
});

describe("defineRestDestination", () => {
  it("keeps every request within the record and byte limits and fails an oversized record alone, unsent", async () => {
    const batch = [...recordsOf(7, 20), { key: "big", action: "upsert" as const, payload: { id: 99, text: "y".repeat(300) } }];
    const outcomes = await toy().write(config(), batch, { stream, batch: true });
    expect(outcomes.find((o) => o.key === "big")).toMatchObject({ ok: false, retryable: false, error: expect.stringMatching(/^The record is \d+ bytes as JSON; Toy takes at most 200 bytes per request\.$/) });
    expect(outcomes.filter((o) => o.ok)).toHaveLength(7);
    for (const request of server.requests) expect(Buffer.byteLength(request.body)).toBeLessThanOrEqual(200);
    expect(server.requests.map((r) => (JSON.parse(r.body) as { items: unknown[] }).items.length)).toEqual([4, 3]);
    // The credential travels in its header, and no log shows it.
    expect(server.requests[0].headers["api-key"]).toBe(KEY);
    expect(JSON.stringify(outcomes)).not.toContain(KEY);
  });

  it("reads per-record results, and never lets a vendor's echo of the key into an error", async () => {
    server.setHandler((req, res) => {
      if (req.url === "/items") return json(res, 207, { failed: [2] });
      json(res, 401, { error: `key ${String(req.headers["api-key"])} is not valid` });
    });
    const outcomes = await toy().write(config(), recordsOf(3), { stream, batch: true });
    expect(outcomes.map((o) => o.ok)).toEqual([true, false, true]);
    expect(outcomes[1]).toMatchObject({ error: "Toy refused the record: id refused", status: 207, retryable: false });
    const check = await toy().check(config());
    expect(check).toEqual({ ok: false, details: "Toy rejected the credentials. Toy answered HTTP 401: key ************* is not valid" });
  });

  it("fails every record when the answer does not line up with the request", async () => {
    server.setHandler((_req, res) => json(res, 207, { failed: [] }));
    const spec = toy({
      writes: { upsert: { item: (r) => r.payload, request: (items) => ({ method: "POST", path: "/items", body: items }), results: () => [{ ok: true }] } },
    });
    const outcomes = await spec.write(config(), recordsOf(2), { stream, batch: true });
    expect(outcomes.map((o) => [o.ok, o.error])).toEqual([
      [false, "Toy answered 1 results for 2 records; none can be trusted."],
      [false, "Toy answered 1 results for 2 records; none can be trusted."],
    ]);
  });

  it("marks 5xx, 429 and the vendor's extra statuses retryable, with the vendor's wait when no Retry-After came", async () => {
    server.setHandler((_req, res) => json(res, 503, { error: "busy" }));
    const spec = toy({ retryableStatuses: [409], retryAfter: () => 7 });
    expect((await spec.write(config(), recordsOf(1), { stream, batch: true }))[0]).toMatchObject({ retryable: true, retryAfterSeconds: 7, error: "Toy answered HTTP 503: busy" });
    server.setHandler((_req, res) => json(res, 429, { error: "slow down" }, { "retry-after": "3" }));
    expect((await spec.write(config(), recordsOf(1), { stream, batch: true }))[0]).toMatchObject({ retryable: true, retryAfterSeconds: 3 });
    server.setHandler((_req, res) => json(res, 409, { error: "locked" }));
    expect((await spec.write(config(), recordsOf(1), { stream, batch: true }))[0]).toMatchObject({ retryable: true, status: 409 });
    server.setHandler((_req, res) => json(res, 400, { error: "bad" }));
    expect((await spec.write(config(), recordsOf(1), { stream, batch: true }))[0]).toMatchObject({ retryable: false, status: 400 });
  });

  it("fails a record whose action the vendor cannot do, and sends one record per request when the sync does not batch", async () => {
    const outcomes = await toy().write(config(), [...recordsOf(2), { key: "d", action: "delete", payload: { id: 1 } }], { stream, batch: false });
    expect(outcomes.find((o) => o.key === "d")).toMatchObject({ ok: false, error: "Toy cannot delete records through this connector." });
    expect(server.requests).toHaveLength(2);
  });

  it("retries when the OAuth token endpoint is unavailable, not when it refuses", async () => {
    const oauth = () =>
      toy({
        definition: {
          name: "ToyOAuth",
          title: "Toy",
          category: "CRM",
          icon: "/icons/http.svg",
          documentationUrl: "https://example.com/docs",
          connectionSpecification: restSpecification("Toy", "https://api.toy.example", { client_id: { type: "string", title: "Client", description: "Id." }, client_secret: secretField("Secret", "The secret.") }, []),
        },
        auth: { kind: "oauth_client_credentials", tokenPath: "/token", clientIdField: "client_id", clientSecretField: "client_secret" },
      });
    const cfg = { client_id: "c1", client_secret: "toy-client-secret-1", base_url: server.url, timeout: 2 };
    server.setHandler((req, res) => (req.url === "/token" ? json(res, 503, { error: "temporarily_unavailable" }) : json(res, 200, {})));
    const [unavailable] = await oauth().write(cfg, recordsOf(1), { stream, batch: true });
    expect(unavailable).toMatchObject({ ok: false, retryable: true, error: "Toy's token endpoint is unavailable (temporarily_unavailable)." });
    server.setHandler((req, res) => (req.url === "/token" ? json(res, 401, { error: "invalid_client" }) : json(res, 200, {})));
    const [refused] = await oauth().write(cfg, recordsOf(1), { stream, batch: true });
    expect(refused).toMatchObject({ ok: false, retryable: false, error: "Toy refused the client credentials (invalid_client)." });
    server.setHandler((req, res) => (req.url === "/token" ? json(res, 200, { access_token: "tok-123456", expires_in: 3600 }) : json(res, 200, {})));
    const [ok] = await oauth().write(cfg, recordsOf(1), { stream, batch: true });
    expect(ok.ok).toBe(true);
    expect(server.requests.at(-1)?.headers.authorization).toBe("Bearer tok-123456");
    expect(JSON.stringify([unavailable, refused, ok])).not.toContain("toy-client-secret-1");
  });

  it("a token endpoint that answers odd JSON or redirects fails with a sentence; the form never follows a redirect", async () => {
    const oauth = toy({
      definition: {
        name: "ToyOAuth",
        title: "Toy",
        category: "CRM",
        icon: "/icons/http.svg",
        documentationUrl: "https://example.com/docs",
        connectionSpecification: restSpecification("Toy", "https://api.toy.example", { client_id: { type: "string", title: "Client", description: "Id." }, client_secret: secretField("Secret", "The secret.") }, []),
      },
      auth: { kind: "oauth_client_credentials", tokenPath: "/token", clientIdField: "client_id", clientSecretField: "client_secret" },
    });
    const cfg = (id: string) => ({ client_id: id, client_secret: "toy-client-secret-2", base_url: server.url, timeout: 2 });
    for (const [i, body] of ["null", "[]", '{"access_token":{"a":1}}', '"tok"'].entries()) {
      server.setHandler((req, res) => (req.url === "/token" ? void res.writeHead(200, { "content-type": "application/json" }).end(body) : json(res, 200, {})));
      await expect(oauth.discover(cfg(`odd-${i}`)), body).rejects.toThrow("Toy refused the client credentials (HTTP 200).");
      const [outcome] = await oauth.write(cfg(`odd-${i}`), recordsOf(1), { stream, batch: true });
      expect(outcome, body).toMatchObject({ ok: false, retryable: false, error: "Toy refused the client credentials (HTTP 200)." });
    }
    // A 307 would carry the form (client secret included) to wherever it points: not followed.
    const elsewhere = await startHttpServer((_req, res) => json(res, 200, { access_token: "stolen", expires_in: 3600 }));
    try {
      server.setHandler((req, res) => (req.url === "/token" ? void res.writeHead(307, { location: `${elsewhere.url}/collect` }).end() : json(res, 200, {})));
      const [outcome] = await oauth.write(cfg("redirected"), recordsOf(1), { stream, batch: true });
      expect(outcome).toMatchObject({ ok: false, error: "Toy refused the client credentials (HTTP 307)." });
      expect(elsewhere.requests).toHaveLength(0);
    } finally {
      await elsewhere.close();
    }
  });

  it("keeps a bounded number of tokens, each of bounded size: a tenant's own token endpoint cannot fill the server's memory", async () => {
    const auth: ClientCredentials = { kind: "oauth_client_credentials", tokenPath: "/token", clientIdField: "client_id", clientSecretField: "client_secret" };
    const cfg = (id: string) => ({ client_id: id, client_secret: "s3cret", base_url: server.url });
    server.setHandler((_req, res) => json(res, 200, { access_token: "x".repeat(MAX_TOKEN_LENGTH + 1), expires_in: 1e9 }));
    await expect(accessToken(server.url, cfg("huge"), auth, 2000, "Toy")).rejects.toThrow("Toy refused the client credentials (HTTP 200).");
    let issued = 0;
    server.setHandler((_req, res) => json(res, 200, { access_token: `tok-${++issued}`, expires_in: 1e9 }));
    for (let i = 0; i <= TOKEN_CACHE_LIMIT + 5; i++) await accessToken(server.url, cfg(`many-${i}`), auth, 2000, "Toy");
    expect(issued).toBe(TOKEN_CACHE_LIMIT + 6);
    expect(cachedTokenCount()).toBe(TOKEN_CACHE_LIMIT);
    // The newest is still cached; the oldest was let go and is fetched again.
    expect(await accessToken(server.url, cfg(`many-${TOKEN_CACHE_LIMIT + 5}`), auth, 2000, "Toy")).toBe(`tok-${TOKEN_CACHE_LIMIT + 6}`);
    expect(await accessToken(server.url, cfg("many-0"), auth, 2000, "Toy")).toBe(`tok-${TOKEN_CACHE_LIMIT + 7}`);
  });

  it("declares base_url a secret target and the rate limits in the catalog", async () => {
    const destination = toy();
    expect(destination.definition.secretTargetFields).toEqual(["base_url"]);
    const catalog = await destination.discover(config());
    expect(catalog).toMatchObject({ request_rate_limit: 2, request_rate_limit_unit: "second", request_rate_concurrency: 1 });
    expect(catalog.streams[0]).toMatchObject({ batch_size: 5, batch_support: true, primary_key: ["id"], url: server.url });
  });
});

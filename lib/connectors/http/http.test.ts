// HTTP webhook destination against a real node:http server on 127.0.0.1.
import { createHash, createHmac } from "node:crypto";
import { getEventListeners } from "node:events";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Row, WriteRecord } from "../types";
import { closedPort, json, startHttpServer, streamFor } from "@/tests/support/connectors";
import { httpDestination } from "./destination";

let server: Awaited<ReturnType<typeof startHttpServer>>;
const stream = streamFor("webhook", { batch_size: 100 });
const records: WriteRecord[] = [
  { key: "1", action: "insert", payload: { id: 1, email: "a@example.com" } },
  { key: "2", action: "update", payload: { id: 2, email: "b@example.com" } },
];
const config = (overrides: Row = {}): Row => ({ destination_url: `${server.url}/hook`, timeout: 2, ...overrides });

beforeAll(async () => {
  server = await startHttpServer();
});
afterAll(() => server.close());
afterEach(() => {
  server.requests.length = 0;
  server.setHandler((_req, res) => json(res, 200, { received: true }));
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
});

describe("Http destination", () => {
  it("sends one request per record, keeping request and response in the log", async () => {
    server.setHandler((_req, res) => json(res, 201, { received: true }, { "x-request-id": "abc" }));
    const outcomes = await httpDestination.write(config({ headers: { Authorization: "Bearer s3cret" } }), records, { stream, batch: false });
    expect(outcomes.map((o) => [o.key, o.ok, o.status])).toEqual([
      ["1", true, 201],
      ["2", true, 201],
    ]);
    expect(server.requests.map((r) => JSON.parse(r.body))).toEqual(records.map((r) => r.payload));
    expect(server.requests[0].headers).toMatchObject({ authorization: "Bearer s3cret", "content-type": "application/json" });
    // Method, URL and body sent; status and body received; never a header (they hold the credentials).
    expect(outcomes[0].log).toEqual({
      level: "info",
      request: { line: `POST ${server.url}/hook`, body: JSON.stringify(records[0].payload) },
      response: { line: "HTTP 201", body: '{"received":true}' },
    });
    expect(JSON.stringify(outcomes)).not.toContain("s3cret");
  });

  it("sends each record's idempotency key; a batch sends its own key and the records' keys in order", async () => {
    const keyed = records.map((r, i) => ({ ...r, idempotencyKey: `key-${i + 1}` }));
    // A configured header of the same name gives way to the engine's key.
    await httpDestination.write(config({ headers: { "idempotency-key": "mine" } }), keyed, { stream, batch: false });
    expect(server.requests.map((r) => r.headers["idempotency-key"]).sort()).toEqual(["key-1", "key-2"]);
    expect(server.requests.every((r) => r.headers["idempotency-keys"] === undefined)).toBe(true);
    server.requests.length = 0;
    await httpDestination.write(config(), keyed, { stream, batch: true });
    await httpDestination.write(config(), keyed, { stream, batch: true });
    const [a, b] = server.requests;
    expect(a.headers["idempotency-keys"]).toBe("key-1,key-2");
    expect(a.headers["idempotency-key"]).toMatch(/^[0-9a-f]{32}$/);
    // The same records again: the same batch key, so the receiver can drop the repeat.
    expect(b.headers["idempotency-key"]).toBe(a.headers["idempotency-key"]);
    server.requests.length = 0;
    // Records without keys (an idempotent use, or another caller): no such header.
    await httpDestination.write(config(), records, { stream, batch: true });
    expect(server.requests[0].headers["idempotency-key"]).toBeUndefined();
  });

  it("a batch of 1,000 records reaches a Node receiver (16 KB of headers): the batch key alone, no record keys", async () => {
    const many = Array.from({ length: 1000 }, (_, i) => ({ key: String(i), action: "upsert" as const, payload: { id: i }, idempotencyKey: createHash("md5").update(String(i)).digest("hex") }));
    const outcomes = await httpDestination.write(config(), many, { stream, batch: true });
    expect(outcomes.every((o) => o.ok)).toBe(true);
    const [request] = server.requests;
    expect(request.headers["idempotency-key"]).toMatch(/^[0-9a-f]{32}$/);
    expect(request.headers["idempotency-keys"]).toBeUndefined();
  });

  it("logs each record of a batch with its own element of the array", async () => {
    server.setHandler((_req, res) => json(res, 422, { error: "bad batch" }));
    const outcomes = await httpDestination.write(config({ hmac_secret: "topsecret" }), records, { stream, batch: true });
    // The shared answer is parsed once (JSON), each record's body is its own element of the array.
    const response = { line: "HTTP 422", body: { error: "bad batch" } };
    expect(outcomes.map((o) => o.log)).toEqual([
      { level: "error", request: { line: `POST ${server.url}/hook (record 1 of 2 in one request)`, body: records[0].payload }, response },
      { level: "error", request: { line: `POST ${server.url}/hook (record 2 of 2 in one request)`, body: records[1].payload }, response },
    ]);
    expect(outcomes.map((o) => o.error)).toEqual([expect.stringContaining("HTTP 422"), expect.stringContaining("HTTP 422")]);
    expect(JSON.stringify(outcomes)).not.toMatch(/topsecret|sha256=/);
  });

  it("keeps the user info of the URL out of the log", async () => {
    const url = new URL(`${server.url}/hook`);
    url.username = "user";
    url.password = "pa55word";
    const [a] = await httpDestination.write(config({ destination_url: url.toString() }), records.slice(0, 1), { stream, batch: false });
    expect(a.log?.request).toEqual({ line: `POST ${server.url}/hook`, body: JSON.stringify(records[0].payload) });
  });

  it("sends a batch as one JSON array", async () => {
    const outcomes = await httpDestination.write(config({ method: "PUT" }), records, { stream, batch: true });
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0].method).toBe("PUT");
    expect(JSON.parse(server.requests[0].body)).toEqual(records.map((r) => r.payload));
  });

  it("signs the exact body with HMAC-SHA256", async () => {
    await httpDestination.write(config({ hmac_secret: "topsecret" }), records.slice(0, 1), { stream, batch: false });
    const { body, headers } = server.requests[0];
    const expected = `sha256=${createHmac("sha256", "topsecret").update(body).digest("hex")}`;
    expect(headers["x-signature-256"]).toBe(expected);
  });

  it("sends GET payloads as query parameters", async () => {
    await httpDestination.write(config({ method: "GET" }), records.slice(0, 1), { stream, batch: false });
    expect(server.requests[0]).toMatchObject({ method: "GET", url: "/hook?id=1&email=a%40example.com", body: "" });
  });

  it("makes 500 and 429 retryable, with Retry-After", async () => {
    server.setHandler((req, res) => {
      if (JSON.parse(req.body).id === 1) json(res, 500, { error: "boom" });
      else json(res, 429, { error: "slow down" }, { "retry-after": "7" });
    });
    const [a, b] = await httpDestination.write(config(), records, { stream, batch: false });
    expect(a).toMatchObject({ ok: false, status: 500, retryable: true, error: expect.stringContaining("HTTP 500") });
    expect(a.log?.level).toBe("error");
    expect(b).toMatchObject({ ok: false, status: 429, retryable: true, retryAfterSeconds: 7 });
  });

  it("does not retry a 400", async () => {
    server.setHandler((_req, res) => json(res, 400, { error: "bad field" }));
    const [a] = await httpDestination.write(config(), records.slice(0, 1), { stream, batch: false });
    expect(a).toMatchObject({ ok: false, status: 400, retryable: false, error: 'HTTP 400 from ' + new URL(server.url).host + ': {"error":"bad field"}' });
  });

  it("times out on a slow server as a retryable failure", async () => {
    server.setHandler((_req, res) => {
      setTimeout(() => json(res, 200, {}), 3000);
    });
    const [a] = await httpDestination.write(config({ timeout: 1 }), records.slice(0, 1), { stream, batch: false });
    expect(a).toMatchObject({ ok: false, status: 0, retryable: true, error: expect.stringMatching(/No response .* within 1 s/) });
  });

  it("stops when the run is cancelled, and leaves nothing attached to the run's signal", async () => {
    const run = new AbortController();
    await httpDestination.write(config(), records, { stream, batch: false, signal: run.signal });
    expect(getEventListeners(run.signal, "abort")).toHaveLength(0);
    server.setHandler((_req, res) => {
      setTimeout(() => json(res, 200, {}), 3000);
    });
    setTimeout(() => run.abort(new Error("canceled")), 100);
    const [a] = await httpDestination.write(config(), records.slice(0, 1), { stream, batch: false, signal: run.signal });
    expect(a).toMatchObject({ ok: false, status: 0, error: "The request was cancelled." });
  });

  it("truncates long response bodies in the log", async () => {
    server.setHandler((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("x".repeat(50_000));
    });
    const [a] = await httpDestination.write(config(), records.slice(0, 1), { stream, batch: false });
    const body = String(a.log?.response.body);
    expect(body.length).toBeLessThan(2_200);
    expect(body).toMatch(/more characters\)$/);
  });

  it("refuses private targets unless OUTBOUND_ALLOW_PRIVATE allows them and metadata always", async () => {
    process.env.OUTBOUND_ALLOW_PRIVATE = "";
    const [blocked] = await httpDestination.write(config(), records.slice(0, 1), { stream, batch: false });
    expect(blocked).toMatchObject({ ok: false, retryable: false, error: expect.stringMatching(/private, loopback or link-local/) });
    expect(server.requests).toHaveLength(0);
    process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
    const [metadata] = await httpDestination.write(config({ destination_url: "http://169.254.169.254/latest/meta-data" }), records.slice(0, 1), {
      stream,
      batch: false,
    });
    expect(metadata).toMatchObject({ ok: false, retryable: false, error: expect.stringMatching(/metadata/) });
    const check = await httpDestination.check(config({ destination_url: "http://metadata.google.internal/" }));
    expect(check).toEqual({ ok: false, details: expect.stringMatching(/metadata/) });
  });

  it("does not follow a redirect to a refused address", async () => {
    server.setHandler((_req, res) => {
      res.writeHead(302, { location: "http://169.254.169.254/latest" });
      res.end();
    });
    const [a] = await httpDestination.write(config(), records.slice(0, 1), { stream, batch: false });
    expect(a).toMatchObject({ ok: false, error: expect.stringMatching(/metadata/) });
  });

  it("keeps the configured (secret) headers on a same-origin redirect and drops them on a cross-origin one", async () => {
    const elsewhere = await startHttpServer();
    try {
      const headers = { Authorization: "Bearer stored-secret-41", "X-Api-Key": "key-secret-41" };
      server.setHandler((req, res) => {
        if (req.url?.endsWith("/here")) return void res.end("ok");
        res.writeHead(307, { location: req.url?.endsWith("/moved") ? "/here" : `${elsewhere.url}/taken` });
        res.end();
      });
      const moved = await httpDestination.write(config({ destination_url: `${server.url}/moved`, headers }), records.slice(0, 1), { stream, batch: false });
      expect(moved[0].ok).toBe(true);
      expect(server.requests.at(-1)).toMatchObject({ url: "/here", headers: expect.objectContaining({ authorization: "Bearer stored-secret-41", "x-api-key": "key-secret-41" }) });
      await httpDestination.write(config({ destination_url: `${server.url}/away`, headers }), records.slice(0, 1), { stream, batch: false });
      expect(elsewhere.requests).toHaveLength(1);
      expect(elsewhere.requests[0].headers.authorization).toBeUndefined();
      expect(elsewhere.requests[0].headers["x-api-key"]).toBeUndefined();
    } finally {
      await elsewhere.close();
    }
  });

  it("checks reachability without sending data", async () => {
    expect(await httpDestination.check(config())).toEqual({ ok: true, details: expect.stringMatching(/^Reached 127\.0\.0\.1:\d+ \(HTTP 200/) });
    expect(server.requests[0].method).toBe("OPTIONS");
    server.setHandler((_req, res) => json(res, 401, {}));
    expect((await httpDestination.check(config({ headers: { Authorization: "Bearer nope-123" } }))).details).not.toContain("nope-123");
    const refused = await httpDestination.check(config({ destination_url: `http://127.0.0.1:${await closedPort()}/` }));
    expect(refused).toEqual({ ok: false, details: expect.stringMatching(/Could not reach 127\.0\.0\.1:\d+: ECONNREFUSED/) });
  });

  it("discovers one open stream", async () => {
    const catalog = await httpDestination.discover(config({ stream_name: "orders" }));
    expect(catalog.streams).toEqual([
      expect.objectContaining({
        name: "orders",
        batch_support: true,
        batch_size: 100,
        json_schema: { type: "object", additionalProperties: true },
        supported_sync_modes: ["full_refresh", "incremental"],
        source_defined_cursor: false,
      }),
    ]);
    // Any body goes: the reference console then lets the mapping name the fields.
    expect(catalog).toMatchObject({ schema_mode: "schemaless", source_defined_cursor: false });
  });

  describe("a method and URL per kind of write", () => {
    const targets = () =>
      config({
        update_method: "PATCH",
        update_url: `${server.url}/contacts/{{ id }}`,
        delete_method: "delete",
        delete_url: `${server.url}/contacts/{{ id }}?reason={{ why }}`,
      });
    const sent = () => server.requests.map((r) => `${r.method} ${r.url}`).sort();

    it("sends inserts, updates and deletes each to their own target, with the payload's values URL-encoded", async () => {
      const outcomes = await httpDestination.write(
        targets(),
        [
          { key: "1", action: "insert", payload: { id: 1 } },
          { key: "2", action: "update", payload: { id: "a/b c", email: "x" } },
          { key: "3", action: "delete", payload: { id: 3, why: "left & gone" } },
          { key: "4", action: "update", payload: { id: ".." } },
        ],
        { stream, batch: false },
      );
      expect(outcomes.map((o) => [o.key, o.ok]).sort()).toEqual([
        ["1", true],
        ["2", true],
        ["3", true],
        ["4", false],
      ]);
      // ".." would climb the path (even percent-encoded): that record fails alone, unsent.
      expect(outcomes.find((o) => o.key === "4")?.error).toBe('The value of "id" (..) cannot be put in a URL: it would change the path.');
      expect(sent()).toEqual(["DELETE /contacts/3?reason=left%20%26%20gone", "PATCH /contacts/a%2Fb%20c", "POST /hook"]);
      expect(JSON.parse(server.requests.find((r) => r.method === "POST")?.body ?? "")).toEqual({ id: 1 });
    });

    it("keeps sending as before when only method and destination_url are set", async () => {
      await httpDestination.write(config({ method: "PUT" }), [...records, { key: "3", action: "delete", payload: { id: 3 } }], { stream, batch: false });
      expect(sent()).toEqual(["PUT /hook", "PUT /hook", "PUT /hook"]);
    });

    it("batches only records that share a method and URL", async () => {
      const outcomes = await httpDestination.write(
        config({ update_method: "PUT", update_url: `${server.url}/bulk-update` }),
        [
          { key: "1", action: "insert", payload: { id: 1 } },
          { key: "2", action: "insert", payload: { id: 2 } },
          { key: "3", action: "update", payload: { id: 3 } },
          { key: "4", action: "update", payload: { id: 4 } },
        ],
        { stream, batch: true },
      );
      expect(outcomes).toHaveLength(4);
      expect(sent()).toEqual(["POST /hook", "PUT /bulk-update"]);
      expect(JSON.parse(server.requests.find((r) => r.method === "PUT")?.body ?? "")).toEqual([{ id: 3 }, { id: 4 }]);
    });

    it("fails a record whose URL template does not give an http(s) URL, without sending it", async () => {
      const outcomes = await httpDestination.write(
        config({ update_url: "{{ target }}" }),
        [{ key: "1", action: "update", payload: { target: "file:///etc/passwd" } }],
        { stream, batch: false },
      );
      expect(outcomes).toEqual([{ key: "1", ok: false, error: expect.stringMatching(/not a URL|only http and https/), retryable: false }]);
      expect(server.requests).toHaveLength(0);
    });
  });
});

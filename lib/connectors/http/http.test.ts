// HTTP webhook destination against a real node:http server on 127.0.0.1.
import { createHmac } from "node:crypto";
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
});

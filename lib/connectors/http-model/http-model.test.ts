// HttpModel source against a real node:http server playing a prediction endpoint.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Row } from "../types";
import { json, startHttpServer } from "@/tests/support/connectors";
import { httpModelSource } from "./source";

let server: Awaited<ReturnType<typeof startHttpServer>>;

/** Scores text by length: {predictions: [{label, score}]} */
function sentimentModel() {
  server.setHandler((req, res) => {
    if (req.headers.authorization !== "Bearer model-key") return json(res, 401, { error: "unauthorized" });
    const body = JSON.parse(req.body) as { inputs: { text: string; id: number } };
    json(res, 200, { predictions: [{ label: body.inputs.text.includes("good") ? "positive" : "negative", score: body.inputs.text.length / 10 }] });
  });
}

const config = (overrides: Row = {}): Row => ({
  url: `${server.url}/predict`,
  headers: { Authorization: "Bearer model-key" },
  // Generous, so a loaded machine cannot fail the other cases; the timeout case sets 1 s.
  timeout: 30,
  request_format: '{"inputs": {"text": "{{ text }}", "id": "{{ id }}"}}',
  response_format: { label: "predictions.0.label", score: "predictions[0].score" },
  input_schema: { type: "object", properties: { id: { type: "integer" }, text: { type: "string", examples: ["a good day"] } } },
  output_schema: { type: "object", properties: { label: { type: "string" }, score: { type: "number" } }, required: ["label"] },
  ...overrides,
});

beforeAll(async () => {
  server = await startHttpServer();
});
afterAll(() => server.close());
afterEach(() => {
  server.requests.length = 0;
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
});

describe("HttpModel source", () => {
  it("infers one output row per input, typed placeholders kept", async () => {
    sentimentModel();
    const rows = await httpModelSource.infer!(config(), [
      { id: 1, text: "a good day" },
      { id: 2, text: "bad" },
    ]);
    expect(rows).toEqual([
      { id: 1, text: "a good day", label: "positive", score: 1, prediction_error: null },
      { id: 2, text: "bad", label: "negative", score: 0.3, prediction_error: null },
    ]);
    expect(JSON.parse(server.requests[0].body)).toEqual({ inputs: { text: "a good day", id: 1 } });
  });

  it("reads input rows given as a JSON array, in batches", async () => {
    sentimentModel();
    const inputs = Array.from({ length: 5 }, (_, i) => ({ id: i, text: i % 2 ? "good" : "meh" }));
    const batches: Row[][] = [];
    for await (const batch of httpModelSource.read(config(), { query: JSON.stringify(inputs), batchSize: 2 })) batches.push(batch);
    expect(batches.map((b) => b.length)).toEqual([2, 2, 1]);
    expect(batches.flat().map((r) => r.label)).toEqual(["negative", "positive", "negative", "positive", "negative"]);
  });

  it("takes the reference's settings (url_host, http_method, config.timeout, a sample response_format)", async () => {
    server.setHandler((req, res) => json(res, 200, { method: req.method, url: req.url, label: "ok" }));
    const reference: Row = {
      url_host: `${server.url}/predict`,
      http_method: "POST",
      is_stream: false,
      headers: { "Content-Type": "application/json" },
      config: { timeout: "5" },
      request_format: '{"inputs": "{{ text }}"}',
      response_format: '{"label": "positive"}',
    };
    const [posted] = await httpModelSource.infer!(reference, [{ text: "hi" }]);
    expect(posted).toMatchObject({ text: "hi", method: "POST", url: "/predict", label: "ok" });
    expect(JSON.parse(server.requests[0].body)).toEqual({ inputs: "hi" });
    // A GET carries the rendered request's fields as query parameters.
    const [got] = await httpModelSource.infer!({ ...reference, http_method: "GET" }, [{ text: "a b" }]);
    expect(got).toMatchObject({ method: "GET", url: "/predict?inputs=a+b" });
    // Our url wins over url_host.
    const [ours] = await httpModelSource.infer!({ ...reference, url_host: "http://127.0.0.1:1/none", url: `${server.url}/ours` }, [{ text: "x" }]);
    expect(ours).toMatchObject({ url: "/ours" });
  });

  it("sends the input row itself without a request template", async () => {
    server.setHandler((req, res) => json(res, 200, { echoed: JSON.parse(req.body) }));
    const [row] = await httpModelSource.infer!(config({ request_format: "", response_format: {} }), [{ id: 9 }]);
    expect(row).toEqual({ id: 9, echoed: { id: 9 }, prediction_error: null });
  });

  it("checks with a sample input and reports success", async () => {
    sentimentModel();
    expect(await httpModelSource.check(config())).toEqual({ ok: true, details: expect.stringMatching(/answered a sample prediction/) });
    expect(JSON.parse(server.requests[0].body)).toEqual({ inputs: { text: "a good day", id: 1 } });
  });

  it("reports non-2xx answers clearly; a 5xx past the retries fails the read naming the row", async () => {
    server.setHandler((_req, res) => json(res, 500, { error: "model crashed" }));
    const result = await httpModelSource.check(config({ max_retries: 0 }));
    expect(result).toEqual({ ok: false, details: expect.stringMatching(/^The model endpoint at 127\.0\.0\.1:\d+ answered HTTP 500: model crashed\.$/) });
    await expect(httpModelSource.infer!(config({ max_retries: 0 }), [{ id: 1, text: "x" }])).rejects.toThrow(/^Input row 1: The model endpoint at .* answered HTTP 500: model crashed\.$/);
  });

  it("reports malformed JSON; in a read it fails that row alone (was: the read failed)", async () => {
    server.setHandler((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end("{not json");
    });
    expect(await httpModelSource.check(config())).toEqual({ ok: false, details: expect.stringMatching(/answered something that is not JSON: "\{not json"/) });
    const [row] = await httpModelSource.infer!(config(), [{ id: 1, text: "x" }]);
    expect(row).toEqual({ id: 1, text: "x", label: null, score: null, prediction_error: expect.stringMatching(/not JSON/) });
  });

  it("a refused row (HTTP 422) carries the endpoint's reason in prediction_error; the other rows complete (was: the read failed)", async () => {
    server.setHandler((req, res) => {
      const body = JSON.parse(req.body) as { inputs: { text: string } };
      if (body.inputs.text === "") return json(res, 422, { detail: "text must not be empty" });
      json(res, 200, { predictions: [{ label: "positive", score: 1 }] });
    });
    const inputs = [{ id: 1, text: "a" }, { id: 2, text: "" }, { id: 3, text: "c" }];
    const batches: Row[][] = [];
    for await (const batch of httpModelSource.read(config(), { query: JSON.stringify(inputs), batchSize: 10 })) batches.push(batch);
    expect(batches.flat()).toEqual([
      { id: 1, text: "a", label: "positive", score: 1, prediction_error: null },
      { id: 2, text: "", label: null, score: null, prediction_error: expect.stringMatching(/^The model endpoint at .* answered HTTP 422: text must not be empty\.$/) },
      { id: 3, text: "c", label: "positive", score: 1, prediction_error: null },
    ]);
    // A refusal is not retried.
    expect(server.requests).toHaveLength(3);
  });

  it("waits out a 429's Retry-After and every row completes", async () => {
    let limited = false;
    server.setHandler((req, res) => {
      if (!limited) {
        limited = true;
        res.writeHead(429, { "content-type": "application/json", "retry-after": "1" });
        res.end(JSON.stringify({ error: "slow down" }));
        return;
      }
      const body = JSON.parse(req.body) as { inputs: { text: string } };
      json(res, 200, { predictions: [{ label: body.inputs.text, score: 0 }] });
    });
    const started = Date.now();
    const rows = await httpModelSource.infer!(config({ concurrency: 1 }), [{ id: 1, text: "a" }, { id: 2, text: "b" }]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(rows.map((r) => [r.label, r.prediction_error])).toEqual([["a", null], ["b", null]]);
    expect(server.requests).toHaveLength(3);
  });

  it("a persistent 429 fails the read with a sentence naming the row", async () => {
    server.setHandler((_req, res) => {
      res.writeHead(429, { "content-type": "application/json", "retry-after": "0" });
      res.end(JSON.stringify({ error: "slow down" }));
    });
    await expect(httpModelSource.infer!(config({ max_retries: 2, concurrency: 1 }), [{ id: 1, text: "a" }, { id: 2, text: "b" }])).rejects.toThrow(
      /^Input row 1: The model endpoint at .* kept answering "too many requests" \(HTTP 429\): slow down\..*\(after 3 attempts\)$/,
    );
    expect(server.requests).toHaveLength(3);
  });

  it("reports a response mapping that finds nothing", async () => {
    server.setHandler((_req, res) => json(res, 200, { result: "x" }));
    const result = await httpModelSource.check(config());
    expect(result).toEqual({ ok: false, details: expect.stringContaining("nothing at: label ← predictions.0.label") });
  });

  it("times out on a slow endpoint", async () => {
    server.setHandler((_req, res) => {
      setTimeout(() => json(res, 200, {}), 2500);
    });
    expect(await httpModelSource.check(config({ timeout: 1, max_retries: 0 }))).toEqual({ ok: false, details: expect.stringMatching(/No response from .* within 1 s/) });
  });

  it("never puts header secrets in check details", async () => {
    server.setHandler((req, res) => json(res, 403, { echo: req.headers.authorization }));
    const result = await httpModelSource.check(config({ headers: { Authorization: "Bearer leak-me-please" } }));
    expect(result.ok).toBe(false);
    expect(result.details).not.toContain("leak-me-please");
  });

  it("refuses private targets unless OUTBOUND_ALLOW_PRIVATE allows them and metadata always", async () => {
    sentimentModel();
    process.env.OUTBOUND_ALLOW_PRIVATE = "";
    expect(await httpModelSource.check(config())).toEqual({ ok: false, details: expect.stringMatching(/private, loopback or link-local/) });
    process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
    expect((await httpModelSource.check(config({ url: "http://[fd00:ec2::254]/predict" }))).details).toMatch(/metadata/);
    expect(server.requests).toHaveLength(0);
  });

  it("discovers one stream with the input and output fields", async () => {
    const catalog = await httpModelSource.discover(config());
    expect(catalog.streams).toHaveLength(1);
    expect(catalog.streams[0].json_schema).toEqual({
      type: "object",
      properties: { id: { type: "integer" }, text: { type: "string", examples: ["a good day"] }, label: { type: "string" }, score: { type: "number" }, prediction_error: { type: ["string", "null"] } },
      required: ["label"],
    });
  });
});

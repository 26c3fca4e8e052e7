// OpenAI-compatible source against tests/support/openai-emulator.ts, a real HTTP server on 127.0.0.1
// that answers as OpenAI's API reference describes (models, chat completions, embeddings, errors).
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Row } from "../types";
import { maskSecrets, validateConfiguration } from "../registry";
import { emulatedEmbedding, emulatedTokens as t, startOpenAiEmulator, type OpenAiEmulator } from "@/tests/support/openai-emulator";
import { openAiSettings } from "./settings";
import { openAiSource } from "./source";
import { openAiSourceDefinition } from "./definition";

const KEY = "sk-test-0123456789abcdef";
let api: OpenAiEmulator;

const config = (overrides: Row = {}): Row => ({ base_url: api.url, api_key: KEY, model: "gpt-test-mini", timeout: 30, max_retries: 2, ...overrides });

async function readAll(cfg: Row, query: unknown, batchSize = 100): Promise<Row[][]> {
  const batches: Row[][] = [];
  for await (const batch of openAiSource.read(cfg, { query: JSON.stringify(query), batchSize })) batches.push(batch);
  return batches;
}

beforeAll(async () => {
  api = await startOpenAiEmulator({ apiKey: KEY, models: ["gpt-test-mini", "text-embedding-test"] });
});
afterAll(() => api.close());
afterEach(() => {
  api.requests.length = 0;
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
});

describe("OpenAI source: check", () => {
  it("lists the models with the Bearer key, with or without /v1 in the base URL", async () => {
    expect(await openAiSource.check(config())).toEqual({ ok: true, details: expect.stringContaining('2 models available, including "gpt-test-mini"') });
    expect((await openAiSource.check(config({ base_url: `${api.url}/v1/` }))).ok).toBe(true);
    expect(api.requests.map((r) => [r.method, r.path, r.authorization])).toEqual([
      ["GET", "/v1/models", `Bearer ${KEY}`],
      ["GET", "/v1/models", `Bearer ${KEY}`],
    ]);
  });

  it("takes the reference's settings: the model from request_format, a sample response_format, config.timeout", async () => {
    const reference: Row = {
      api_key: KEY,
      is_stream: false,
      config: { timeout: "7" },
      request_format: '{"model":"gpt-test-mini", "messages":[{"role": "user", "content": "hi"}], "stream": false}',
      response_format: '{"choices":[{"index": 0, "delta":{"role": "assistant", "content": "hello"}}]}',
    };
    expect(openAiSettings(reference)).toMatchObject({ apiUrl: "https://api.openai.com/v1", model: "gpt-test-mini", responseFormat: "text", timeoutMs: 7000 });
    expect(await openAiSource.check({ ...reference, base_url: api.url })).toEqual({ ok: true, details: expect.stringContaining('"gpt-test-mini"') });
    expect(openAiSettings({ ...reference, model: "ours", timeout: 3, response_format: "json_object" })).toMatchObject({ model: "ours", timeoutMs: 3000, responseFormat: "json_object" });
  });

  it("renders the reference's request_format for each row when it has placeholders and no prompt_template is set", async () => {
    const reference: Row = {
      base_url: api.url,
      api_key: KEY,
      is_stream: true,
      request_format: '{"model":"gpt-test-mini", "messages":[{"role": "system", "content": "Be brief."}, {"role": "user", "content": "{{prompt}}"}], "temperature": 0.2, "stream": true}',
      response_format: '{"choices":[{"index": 0, "delta":{"role": "assistant", "content": "hello"}}]}',
    };
    const [[row]] = await readAll(reference, [{ prompt: "Say hi" }]);
    expect(row).toMatchObject({ prompt: "Say hi", finish_reason: "stop" });
    expect(api.requests[0].body).toEqual({
      model: "gpt-test-mini",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Say hi" },
      ],
      temperature: 0.2,
      stream: false,
    });
    // Our prompt_template, when set, wins over it.
    await readAll({ ...reference, prompt_template: "{{ prompt }}!" }, [{ prompt: "x" }]);
    expect((api.requests[1].body as Row).messages).toEqual([{ role: "user", content: "x!" }]);
  });

  it("a wrong key is a 401 with a sentence, no retry", async () => {
    const result = await openAiSource.check(config({ api_key: "sk-wrong-key-42" }));
    expect(result).toEqual({ ok: false, details: expect.stringMatching(/refused the API key \(HTTP 401\): Incorrect API key provided/) });
    expect(api.requests).toHaveLength(1);
  });

  it("an unlisted model fails the check and names the listed ones", async () => {
    const result = await openAiSource.check(config({ model: "gpt-typo" }));
    expect(result.ok).toBe(false);
    expect(result.details).toContain('does not list the model "gpt-typo". It lists: gpt-test-mini, text-embedding-test.');
  });

  it("never shows the API key, even when the server repeats it", async () => {
    const echo = await startOpenAiEmulator({ apiKey: "sk-right", echoKeyInErrors: true });
    try {
      const secret = "sk-leak-me-please-9876";
      const result = await openAiSource.check({ base_url: echo.url, api_key: secret, model: "gpt-test-mini" });
      expect(result.ok).toBe(false);
      expect(result.details).toContain("Incorrect API key provided");
      expect(result.details).not.toContain(secret);
    } finally {
      await echo.close();
    }
    const masked = maskSecrets(config(), openAiSourceDefinition);
    expect(masked.api_key).toBe("*************");
    expect(JSON.stringify(masked)).not.toContain(KEY);
  });

  it("obeys the outbound network policy: private targets need OUTBOUND_ALLOW_PRIVATE, metadata never", async () => {
    process.env.OUTBOUND_ALLOW_PRIVATE = "";
    expect(await openAiSource.check(config())).toEqual({ ok: false, details: expect.stringMatching(/private, loopback or link-local/) });
    await expect(readAll(config(), [{ text: "hi" }])).rejects.toThrow(/private, loopback or link-local/);
    process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
    expect((await openAiSource.check(config({ base_url: "http://169.254.169.254" }))).details).toMatch(/metadata/);
    expect(api.requests).toHaveLength(0);
  });
});

describe("OpenAI source: chat completions", () => {
  it("one row per input: the input fields, the reply, finish_reason and total_tokens", async () => {
    const cfg = config({ prompt_template: "Summarise: {{ review }}", system_prompt: "You are terse about {{ row.product }}.", max_tokens: 50, temperature: 0 });
    const batches = await readAll(cfg, [
      { id: 1, product: "kettle", review: "boils fast" },
      { id: 2, product: "toaster", review: "burns bread" },
      { id: 3, product: "lamp", review: "bright" },
    ], 2);
    expect(batches.map((b) => b.length)).toEqual([2, 1]);
    expect(batches.flat()[0]).toEqual({ id: 1, product: "kettle", review: "boils fast", completion: "Echo: Summarise: boils fast", finish_reason: "stop", total_tokens: t("You are terse about kettle.") + t("Summarise: boils fast") + t("Echo: Summarise: boils fast"), prediction_error: null });
    const first = api.requests.find((r) => JSON.stringify(r.body).includes("kettle"));
    expect(first?.body).toEqual({
      model: "gpt-test-mini",
      messages: [
        { role: "system", content: "You are terse about kettle." },
        { role: "user", content: "Summarise: boils fast" },
      ],
      max_tokens: 50,
      temperature: 0,
    });
  });

  it("json_object: asks for JSON and parses the reply; a cut reply or the server's refusal fails that row alone (prediction_error), not the read", async () => {
    const json = await startOpenAiEmulator({ reply: (m) => JSON.stringify({ label: m.at(-1)?.content.includes("great") ? "positive" : "negative", score: 0.9 }) });
    try {
      const cfg = { base_url: json.url, model: "gpt-test-mini", response_format: "json_object", prompt_template: "Answer in JSON: {{ text }}", output_field: "sentiment" };
      const [rows] = await readAll(cfg, [{ id: 7, text: "a great day" }]);
      expect(rows).toEqual([{ id: 7, text: "a great day", sentiment: { label: "positive", score: 0.9 }, finish_reason: "stop", total_tokens: t("Answer in JSON: a great day") + t('{"label":"positive","score":0.9}'), prediction_error: null }]);
      expect(json.requests[0].body).toMatchObject({ response_format: { type: "json_object" } });
      expect(json.requests[0].authorization).toBeUndefined();
      const [[cut]] = await readAll({ ...cfg, max_tokens: 3 }, [{ text: "x" }]);
      expect(cut).toEqual({ text: "x", sentiment: null, finish_reason: null, total_tokens: null, prediction_error: expect.stringMatching(/^The reply is not valid JSON.*raise max tokens/) });
      // The server's own refusal (no "json" in the prompt) reaches the user as its sentence, on the row.
      const [[refused]] = await readAll({ ...cfg, prompt_template: "{{ text }}" }, [{ text: "x" }]);
      expect(refused.prediction_error).toMatch(/HTTP 400: 'messages' must contain the word 'json'/);
    } finally {
      await json.close();
    }
  });

  it("a row's own messages array is sent as it is; the query may override settings", async () => {
    const query = { model: "no-such-model", inputs: [{ id: 1, messages: [{ role: "user", content: "hi there" }] }] };
    await expect(readAll(config(), query)).rejects.toThrow(/Input row 1: .*no such endpoint or model \(HTTP 404\).*does not exist/);
    const [rows] = await readAll(config(), { ...query, model: "gpt-test-mini", output_field: "answer" });
    expect(rows).toEqual([{ id: 1, messages: [{ role: "user", content: "hi there" }], answer: "Echo: hi there", finish_reason: "stop", total_tokens: t("hi there") + t("Echo: hi there"), prediction_error: null }]);
  });

  it("retries 429 and 5xx (Retry-After honoured) and gives up after max_retries", async () => {
    api.failNext({ status: 429, headers: { "retry-after": "0" } });
    api.failNext({ status: 503, body: { error: { message: "overloaded" } }, headers: { "retry-after": "0" } });
    const [rows] = await readAll(config(), [{ text: "patience" }]);
    expect(rows[0].completion).toBe("Echo: patience");
    expect(api.requests.map((r) => r.path)).toEqual(["/v1/chat/completions", "/v1/chat/completions", "/v1/chat/completions"]);
    api.requests.length = 0;
    api.failNext({ status: 429, headers: { "retry-after": "0" } }, 3);
    await expect(readAll(config(), [{ text: "x" }])).rejects.toThrow(/HTTP 429.*after 3 attempts/);
    expect(api.requests).toHaveLength(3);
    api.requests.length = 0;
  });

  it("a refused row (HTTP 400) carries prediction_error and is not retried; the other rows complete", async () => {
    api.failNext({ status: 400, body: { error: { message: "bad temperature" } } });
    const [rows] = await readAll(config({ concurrency: 1 }), [{ id: 1, text: "x" }, { id: 2, text: "y" }, { id: 3, text: "z" }]);
    expect(rows.map((r) => [r.id, r.completion, r.prediction_error])).toEqual([
      [1, null, expect.stringMatching(/HTTP 400: bad temperature\.$/)],
      [2, "Echo: y", null],
      [3, "Echo: z", null],
    ]);
    expect(rows[0]).toMatchObject({ finish_reason: null, total_tokens: null });
    expect(api.requests).toHaveLength(3);
  });

  it("waits out a 429's Retry-After mid-read and every row completes", async () => {
    api.failNext({ status: 429, body: { error: { message: "Rate limit reached" } }, headers: { "retry-after": "1" } });
    const started = Date.now();
    const [rows] = await readAll(config({ concurrency: 1 }), [{ id: 1, text: "a" }, { id: 2, text: "b" }]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(rows.map((r) => [r.completion, r.prediction_error])).toEqual([["Echo: a", null], ["Echo: b", null]]);
    expect(api.requests).toHaveLength(3);
  });

  it("a persistent 429 fails the read with a sentence naming the row", async () => {
    api.failNext({ status: 429, body: { error: { message: "Rate limit reached" } }, headers: { "retry-after": "0" } }, 3);
    await expect(readAll(config({ concurrency: 1 }), [{ text: "x" }])).rejects.toThrow(/^Input row 1: .*kept answering "too many requests" \(HTTP 429\): Rate limit reached\..*after 3 attempts/);
  });

  it("refuses a query that is not input rows, with a sentence", async () => {
    await expect(readAll(config(), { inputs: "nope" })).rejects.toThrow(/"inputs" must be an array/);
    expect(() => openAiSource.checkQuery!("SELECT 1")).toThrow(/JSON array of input rows/);
    expect(() => openAiSource.checkQuery!('{"inputs": [], "temprature": 1}')).toThrow(/unknown settings: temprature/);
    expect(() => openAiSource.checkQuery!('{"inputs": [], "operation": "images"}')).toThrow(/operation/);
    expect(() => openAiSource.checkQuery!("[1]")).toThrow(/Input row 1 is not a JSON object/);
    expect(() => openAiSource.checkQuery!('{"inputs": [{"text": "ok"}], "operation": "embeddings"}')).not.toThrow();
  });
});

describe("OpenAI source: embeddings", () => {
  const embedConfig = (overrides: Row = {}) => config({ model: "text-embedding-test", operation: "embeddings", embedding_batch_size: 2, ...overrides });

  it("turns each row's text into a vector column, placed by data[].index, in requests of embedding_batch_size", async () => {
    const inputs = [{ id: 1, text: "alpha" }, { id: 2, text: "beta" }, { id: 3, text: "gamma" }];
    const [rows] = await readAll(embedConfig(), inputs);
    expect(rows).toEqual(inputs.map((r) => ({ ...r, embedding: emulatedEmbedding(r.text), prediction_error: null })));
    const bodies = api.requests.map((r) => r.body).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    expect(bodies).toEqual([
      { model: "text-embedding-test", input: ["alpha", "beta"], encoding_format: "float" },
      { model: "text-embedding-test", input: ["gamma"], encoding_format: "float" },
    ]);
  });

  it("a template picks the text; dimensions and the output column are passed on", async () => {
    const rows = await openAiSource.infer!(embedConfig({ prompt_template: "{{ title }}: {{ body }}", dimensions: 5, output_field: "vector" }), [{ title: "T", body: "B" }]);
    expect(rows).toEqual([{ title: "T", body: "B", vector: emulatedEmbedding("T: B", 5), prediction_error: null }]);
    expect(api.requests[0].body).toMatchObject({ input: ["T: B"], dimensions: 5 });
  });

  it("a model query switches a chat connector to embeddings", async () => {
    const [rows] = await readAll(config(), { operation: "embeddings", model: "text-embedding-test", inputs: [{ text: "one" }] });
    expect(rows).toEqual([{ text: "one", embedding: emulatedEmbedding("one"), prediction_error: null }]);
  });

  it("a refused request is asked again row by row: only the refused row carries prediction_error (was: the read failed)", async () => {
    const [rows] = await readAll(embedConfig(), [{ text: "fine" }, { text: "" }, { text: "other" }]);
    expect(rows).toEqual([
      { text: "fine", embedding: emulatedEmbedding("fine"), prediction_error: null },
      { text: "", embedding: null, prediction_error: expect.stringMatching(/HTTP 400: 'input' must be/) },
      { text: "other", embedding: emulatedEmbedding("other"), prediction_error: null },
    ]);
    // [fine, ""] refused, then fine and "" alone; [other] in its own chunk.
    expect(api.requests).toHaveLength(4);
  });

  it("a connection-level failure of a chunk still fails the read naming its rows", async () => {
    api.failNext({ status: 401, body: { error: { message: "Incorrect API key provided" } } });
    await expect(readAll(embedConfig({ concurrency: 1 }), [{ text: "a" }, { text: "b" }])).rejects.toThrow(/^Input rows 1–2: .*HTTP 401/);
  });
});

describe("OpenAI source: preview, discovery, definition", () => {
  it("previews at most 10 inputs with typed columns", async () => {
    const inputs = Array.from({ length: 15 }, (_, i) => ({ id: i, text: `t${i}` }));
    const result = await openAiSource.query!(config(), JSON.stringify(inputs), 50);
    expect(result.rows).toHaveLength(10);
    expect(result.columns).toEqual([
      { name: "id", type: "integer" },
      { name: "text", type: "string" },
      { name: "completion", type: "string" },
      { name: "finish_reason", type: "string" },
      { name: "total_tokens", type: "integer" },
      { name: "prediction_error", type: "null" },
    ]);
    expect(api.requests).toHaveLength(10);
  });

  it("discovers a stream declaring the columns the model adds", async () => {
    const chat = await openAiSource.discover(config({ requests_per_minute: 60 }));
    expect(chat.streams.map((s) => [s.name, s.url])).toEqual([["chat_completions", `${api.url}/v1/chat/completions`]]);
    expect(chat.streams[0].json_schema).toMatchObject({ properties: { completion: { type: "string" }, prediction_error: { type: ["string", "null"] } }, required: ["completion"] });
    expect(chat.request_rate_limit).toBe(60);
    const embed = await openAiSource.discover(config({ operation: "embeddings" }));
    expect(embed.streams[0].json_schema).toEqual({ type: "object", properties: { embedding: { type: "array", items: { type: "number" } }, prediction_error: { type: ["string", "null"] } }, required: ["embedding"] });
  });

  it("validates configurations with the definition's schema", () => {
    expect(validateConfiguration(openAiSourceDefinition, { base_url: "http://localhost:11434", model: "llama3.1" })).toEqual([]);
    expect(validateConfiguration(openAiSourceDefinition, { base_url: "ftp://x", model: "m", operation: "images" }).map((e) => e.path)).toEqual(["base_url", "operation"]);
  });
});

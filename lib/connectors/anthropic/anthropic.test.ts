// Anthropic source against tests/emulators/ai-models.ts (the Messages API as Anthropic's reference
// describes it): rows through the source, streaming assembled, a refused row, 429 + Retry-After.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Row } from "../types";
import { validateConfiguration } from "../registry";
import { AI_CREDENTIALS, readAll, startAiModels } from "@/tests/support/ai-models";
import type { AiModelsEmulator } from "@/tests/emulators/ai-models";
import { anthropicSource } from "./source";
import { anthropicSourceDefinition } from "./definition";

let emu: AiModelsEmulator;
beforeAll(async () => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  emu = await startAiModels();
});
afterAll(() => emu.close());
beforeEach(() => emu.reset());

/** The reference's settings (a sample answer as response_format) and our base_url. */
const config = (overrides: Row = {}): Row => ({
  api_key: AI_CREDENTIALS.anthropicKey,
  base_url: emu.url,
  is_stream: false,
  config: { timeout: "30" },
  request_format: '{"model": "claude-3-5-haiku-latest", "max_tokens": 64, "messages": [{"role": "user", "content": "{{ prompt }}"}], "stream": false}',
  response_format: '{"id": "msg_1", "model": "m", "content": [{"type": "text", "text": "Hi"}], "stop_reason": "end_turn", "usage": {"input_tokens": 1, "output_tokens": 1}}',
  ...overrides,
});

describe("Anthropic source", () => {
  it("accepts the reference's settings unchanged", () => {
    const { base_url: _ours, ...reference } = config();
    expect(validateConfiguration(anthropicSourceDefinition, reference)).toEqual([]);
    expect(validateConfiguration(anthropicSourceDefinition, { api_key: "k" }).map((e) => e.path)).toEqual(["request_format", "response_format"]);
  });

  it("answers each input row once, picking the sample answer's fields", async () => {
    const rows = await readAll(anthropicSource, config(), [
      { id: 1, prompt: "hello" },
      { id: 2, prompt: "how are you" },
      { id: 3, prompt: "bye" },
    ]);
    expect(rows.map((r) => [r.id, r.completion, r.stop_reason, r.prediction_error])).toEqual([
      [1, "Echo: hello", "end_turn", null],
      [2, "Echo: how are you", "end_turn", null],
      [3, "Echo: bye", "end_turn", null],
    ]);
    expect(Object.keys(rows[0]).sort()).toEqual(["completion", "content", "id", "model", "prediction_error", "prompt", "stop_reason", "usage"].sort());
    const sent = emu.requests.filter((r) => r.url === "/v1/messages");
    expect(sent).toHaveLength(3);
    expect(sent[0].headers["x-api-key"]).toBe(AI_CREDENTIALS.anthropicKey);
    expect(sent[0].headers["anthropic-version"]).toBe("2023-06-01");
    expect(JSON.parse(sent[0].body)).toEqual({ model: "claude-3-5-haiku-latest", max_tokens: 64, messages: [{ role: "user", content: "hello" }], stream: false });
  });

  it("streams with is_stream and assembles the events into the same message", async () => {
    const [plain] = await readAll(anthropicSource, config(), [{ prompt: "tell me a story" }]);
    const [streamed] = await readAll(anthropicSource, config({ is_stream: true }), [{ prompt: "tell me a story" }]);
    const sent = emu.requests.filter((r) => r.url === "/v1/messages");
    expect(JSON.parse(sent[1].body).stream).toBe(true);
    expect(sent[1].headers.accept).toBe("text/event-stream");
    expect(streamed.completion).toBe("Echo: tell me a story");
    expect(streamed.content).toEqual(plain.content);
    expect(streamed.stop_reason).toBe("end_turn");
    expect(streamed.usage).toMatchObject({ output_tokens: 5 });
  });

  it("reports a refused prediction on its row and goes on with the others", async () => {
    const rows = await readAll(anthropicSource, config(), [{ prompt: "fine" }, { prompt: "REFUSE this" }, { prompt: "also fine" }]);
    expect(rows.map((r) => r.completion)).toEqual(["Echo: fine", null, "Echo: also fine"]);
    expect(rows[1].prediction_error).toMatch(/^Anthropic answered HTTP 400: messages\.0\.content: this prompt is refused/);
    expect(rows[1].content).toBeNull();
  });

  it("waits as Retry-After says on a 429, then stops the read with a sentence when 429s outlast the retries", async () => {
    emu.throttleNext(1);
    const [row] = await readAll(anthropicSource, config(), [{ prompt: "hi" }]);
    expect(row.completion).toBe("Echo: hi");
    expect(emu.state.throttled).toBe(1);
    expect(emu.state.calls.anthropic).toBe(2);
    emu.throttleNext(5);
    await expect(readAll(anthropicSource, config({ max_retries: 1 }), [{ prompt: "hi" }])).rejects.toThrow(
      /^Input row 1: Anthropic kept answering "too many requests" \(HTTP 429\): Number of requests has exceeded your rate limit\. .*\(after 2 attempts\)$/,
    );
  });

  it("checks the key and the model without spending tokens; a wrong key fails without showing it", async () => {
    expect(await anthropicSource.check(config())).toEqual({ ok: true, details: 'Connected to Anthropic: the model "claude-3-5-haiku-latest" is available.' });
    expect(emu.requests.map((r) => r.url)).toEqual(["/v1/models/claude-3-5-haiku-latest"]);
    const wrong = await anthropicSource.check(config({ api_key: "sk-ant-wrong-key-123456" }));
    expect(wrong).toEqual({ ok: false, details: "Anthropic refused the credentials (HTTP 401): invalid x-api-key." });
    const unknown = await anthropicSource.check(config({ request_format: '{"model": "gpt-4", "max_tokens": 5, "messages": []}' }));
    expect(unknown.details).toMatch(/no such endpoint or model \(HTTP 404\): model: gpt-4/);
  });

  it("discovers the sample answer's fields with completion and prediction_error", async () => {
    const catalog = await anthropicSource.discover(config());
    expect(catalog.request_rate_limit).toBe(50);
    expect(catalog.streams[0].json_schema).toEqual({
      type: "object",
      properties: {
        id: { type: ["string", "null"] },
        model: { type: ["string", "null"] },
        content: { type: ["array", "null"] },
        stop_reason: { type: ["string", "null"] },
        usage: { type: ["object", "null"] },
        completion: { type: ["string", "null"] },
        prediction_error: { type: ["string", "null"] },
      },
    });
  });

  it("stops when the read is cancelled", async () => {
    const abort = new AbortController();
    abort.abort();
    const read = anthropicSource.read(config(), { query: '[{"prompt": "x"}]', batchSize: 1, signal: abort.signal });
    await expect(read[Symbol.asyncIterator]().next()).rejects.toThrow(/cancel|abort/i);
  });

  it("refuses private targets unless allowed", async () => {
    process.env.OUTBOUND_ALLOW_PRIVATE = "";
    try {
      const result = await anthropicSource.check(config());
      expect(result).toEqual({ ok: false, details: expect.stringMatching(/private, loopback or link-local/) });
    } finally {
      process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
    }
  });
});

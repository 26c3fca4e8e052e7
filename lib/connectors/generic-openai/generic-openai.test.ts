// GenericOpenAI source against tests/emulators/ai-models.ts (chat completions as OpenAI's API
// reference describes them): rows through the source, streaming assembled, a refused row, 429.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Row } from "../types";
import { validateConfiguration } from "../registry";
import { AI_CREDENTIALS, readAll, startAiModels } from "@/tests/support/ai-models";
import type { AiModelsEmulator } from "@/tests/emulators/ai-models";
import { genericOpenAiSource } from "./source";
import { genericOpenAiSourceDefinition } from "./definition";

let emu: AiModelsEmulator;
beforeAll(async () => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  emu = await startAiModels();
});
afterAll(() => emu.close());
beforeEach(() => emu.reset());

/** The reference's settings, as its console saves them. */
const config = (overrides: Row = {}): Row => ({
  url: `${emu.url}/v1/chat/completions`,
  api_key: AI_CREDENTIALS.openAiKey,
  is_stream: false,
  config: { timeout: "30" },
  request_format: '{"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "{{ question }}"}], "stream": false}',
  response_format: '{"choices": [{"index": 0, "delta": {"role": "assistant", "content": "APIs are…"}, "finish_reason": "stop"}]}',
  ...overrides,
});

const chats = () => emu.requests.filter((r) => r.url === "/v1/chat/completions");

describe("GenericOpenAI source", () => {
  it("accepts the reference's settings unchanged", () => {
    expect(validateConfiguration(genericOpenAiSourceDefinition, config())).toEqual([]);
  });

  it("answers each input row once with a Bearer key", async () => {
    const rows = await readAll(genericOpenAiSource, config(), [
      { id: 1, question: "What is an API?" },
      { id: 2, question: "And REST?" },
    ]);
    expect(rows.map((r) => [r.id, r.completion, r.prediction_error])).toEqual([
      [1, "Echo: What is an API?", null],
      [2, "Echo: And REST?", null],
    ]);
    expect(rows[0].choices).toEqual([{ index: 0, message: { role: "assistant", content: "Echo: What is an API?" }, finish_reason: "stop" }]);
    expect(chats()[0].headers.authorization).toBe(`Bearer ${AI_CREDENTIALS.openAiKey}`);
    expect(JSON.parse(chats()[0].body)).toEqual({ model: "gpt-4o-mini", messages: [{ role: "user", content: "What is an API?" }], stream: false });
  });

  it("streams with is_stream and assembles the chunks into one completion", async () => {
    const [row] = await readAll(genericOpenAiSource, config({ is_stream: true }), [{ question: "stream this please" }]);
    expect(JSON.parse(chats()[0].body).stream).toBe(true);
    expect(row.completion).toBe("Echo: stream this please");
    expect(row.choices).toEqual([
      {
        index: 0,
        message: { role: "assistant", content: "Echo: stream this please" },
        delta: { role: "assistant", content: "Echo: stream this please" },
        finish_reason: "stop",
      },
    ]);
  });

  it("reports a refused prediction on its row", async () => {
    const rows = await readAll(genericOpenAiSource, config(), [{ question: "REFUSE" }, { question: "ok" }]);
    expect(rows[0]).toMatchObject({ completion: null, choices: null, prediction_error: expect.stringMatching(/answered HTTP 400: This prompt is refused by the emulator\./) });
    expect(rows[1]).toMatchObject({ completion: "Echo: ok", prediction_error: null });
  });

  it("honours a 429's Retry-After", async () => {
    emu.throttleNext(2);
    const [row] = await readAll(genericOpenAiSource, config(), [{ question: "hi" }]);
    expect(row.completion).toBe("Echo: hi");
    expect(emu.state.calls.openai).toBe(3);
    expect(emu.state.throttled).toBe(2);
  });

  it("checks with a sample completion; a wrong key fails without showing it", async () => {
    expect(await genericOpenAiSource.check(config())).toEqual({ ok: true, details: expect.stringMatching(/answered a sample chat completion/) });
    expect(JSON.parse(chats()[0].body).messages[0].content).toBe("Hello");
    const wrong = await genericOpenAiSource.check(config({ api_key: "sk-wrong-0123456789" }));
    expect(wrong.ok).toBe(false);
    expect(wrong.details).toMatch(/refused the credentials \(HTTP 401\): Incorrect API key provided\./);
    expect(wrong.details).not.toContain("sk-wrong-0123456789");
  });

  it("previews a few inputs through the model", async () => {
    const preview = await genericOpenAiSource.query!(config(), '[{"question": "a"}, {"question": "b"}]', 1);
    expect(preview.rows).toHaveLength(1);
    expect(preview.columns).toEqual(expect.arrayContaining([{ name: "completion", type: "string" }, { name: "prediction_error", type: "null" }]));
  });
});

// The kit's pure parts: spacing by requests and tokens (a fake clock), event streams, the request
// and response formats.
import { describe, expect, it } from "vitest";
import { MinuteBudget, retryDelayMs } from "./budget";
import { estimateTokens, pickOutputs, renderRequest, sampleInput } from "./formats";
import { kitSettings, responsePick } from "./settings";
import { parseSse, sseJson } from "./sse";
import { parseInputs } from "./source";

describe("MinuteBudget", () => {
  it("spaces starts by cost: requests one each, tokens by their estimate, queued in order", async () => {
    let now = 1_000_000;
    const waits: number[] = [];
    const budget = new MinuteBudget(
      () => now,
      async (ms) => {
        waits.push(ms);
      },
    );
    // 120 requests a minute: one every 500 ms.
    expect(await Promise.all([budget.acquire("a", 120), budget.acquire("a", 120), budget.acquire("a", 120)])).toEqual([0, 500, 1000]);
    // 6,000 tokens a minute: a 3,000-token request holds the next one back 30 s.
    expect(await budget.acquire("t", 6000, 3000)).toBe(0);
    expect(await budget.acquire("t", 6000, 100)).toBe(30_000);
    // A request above the whole budget counts as the budget (it still goes, a minute later).
    expect(await budget.acquire("big", 1000, 50_000)).toBe(0);
    expect(await budget.acquire("big", 1000, 1)).toBe(60_000);
    // No limit, no wait; other keys are apart.
    expect(await budget.acquire("a", 0)).toBe(0);
    expect(await budget.acquire("b", 120)).toBe(0);
    now += 10_000;
    expect(await budget.acquire("a", 120)).toBe(0);
    expect(waits).toEqual([0, 500, 1000, 0, 30_000, 0, 60_000, 0, 0]);
  });

  it("waits Retry-After when there is one, else 1 s, 2 s, 4 s… up to 30 s", () => {
    expect(retryDelayMs(3, 0)).toBe(3000);
    expect([0, 1, 2, 6].map((a) => retryDelayMs(undefined, a))).toEqual([1000, 2000, 4000, 30_000]);
  });
});

describe("server-sent events", () => {
  it("splits events at blank lines, joins data lines, skips comments, keeps ids", () => {
    const text = ": keep-alive\n\nevent: a\ndata: {\"x\":\ndata: 1}\n\nid: 7\ndata: [DONE]\r\n\r\ndata: not json\n\n";
    expect(parseSse(text)).toEqual([
      { event: "a", data: '{"x":\n1}' },
      { event: "message", data: "[DONE]", id: "7" },
      { event: "message", data: "not json", id: "7" },
    ]);
    expect(sseJson(text)).toEqual([{ event: "a", data: { x: 1 } }]);
  });
});

describe("request and response formats", () => {
  it("renders request_format per row, a lone placeholder keeping its type", () => {
    const template = JSON.parse('{"model": "m", "max_tokens": "{{ limit }}", "messages": [{"role": "user", "content": "Say {{ word | upcase }}"}]}');
    expect(renderRequest(template, { limit: 12, word: "hi" })).toEqual({ model: "m", max_tokens: 12, messages: [{ role: "user", content: "Say HI" }] });
    expect(sampleInput(template)).toEqual({ limit: "Hello", word: "Hello" });
  });

  it("picks a sample answer's top-level fields, a mapping's paths, or everything", () => {
    const answer = { id: "x", content: [{ text: "hi" }], usage: { output_tokens: 2 }, extra: true };
    expect(pickOutputs(responsePick({ response_format: '{"content": [], "usage": {}, "missing": 1}' }), answer)).toEqual({ content: [{ text: "hi" }], usage: { output_tokens: 2 }, missing: null });
    expect(pickOutputs(responsePick({ response_format: { text: "content[0].text", tokens: "usage.output_tokens" } }), answer)).toEqual({ text: "hi", tokens: 2 });
    expect(pickOutputs(responsePick({ response_format: "" }), answer)).toEqual(answer);
    expect(pickOutputs(responsePick({}), [1, 2])).toEqual({ output: [1, 2] });
    expect(() => responsePick({ response_format: "{not json" })).toThrow(/sample answer in JSON/);
  });

  it("estimates tokens from the text and the output limit the request names", () => {
    expect(estimateTokens({ max_tokens: 100, prompt: "x".repeat(40) })).toBe(Math.ceil(JSON.stringify({ max_tokens: 100, prompt: "x".repeat(40) }).length / 4) + 100);
    expect(estimateTokens({ parameters: { max_new_tokens: 7 } }) - Math.ceil(JSON.stringify({ parameters: { max_new_tokens: 7 } }).length / 4)).toBe(7);
  });

  it("takes our timeout over the reference's config.timeout, 30 s by default", () => {
    const base = { request_format: "{}" };
    expect(kitSettings(base).timeoutMs).toBe(30_000);
    expect(kitSettings({ ...base, config: { timeout: "12" } }).timeoutMs).toBe(12_000);
    expect(kitSettings({ ...base, config: { timeout: "12" }, timeout: 5 }).timeoutMs).toBe(5000);
    expect(() => kitSettings({ request_format: "{oops" })).toThrow(/request_format" is not valid JSON/);
  });

  it("takes input rows as a JSON array or one object", () => {
    expect(parseInputs('[{"a": 1}, {"a": 2}]')).toEqual([{ a: 1 }, { a: 2 }]);
    expect(parseInputs('{"a": 1}')).toEqual([{ a: 1 }]);
    expect(() => parseInputs("SELECT 1")).toThrow(/not valid JSON/);
    expect(() => parseInputs("[1]")).toThrow(/Input row 1 is not an object/);
  });
});

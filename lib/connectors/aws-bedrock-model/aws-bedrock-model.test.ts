// AwsBedrockModel source against tests/emulators/ai-models.ts (Bedrock Runtime's InvokeModel as the
// AWS API reference describes it, SigV4 signatures recomputed): through @aws-sdk/client-bedrock-runtime.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Row } from "../types";
import { validateConfiguration } from "../registry";
import { AI_CREDENTIALS, readAll, startAiModels } from "@/tests/support/ai-models";
import type { AiModelsEmulator } from "@/tests/emulators/ai-models";
import { awsBedrockModelSource } from "./source";
import { awsBedrockModelSourceDefinition } from "./definition";

let emu: AiModelsEmulator;
beforeAll(async () => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  emu = await startAiModels();
});
afterAll(() => emu.close());
beforeEach(() => emu.reset());

const config = (overrides: Row = {}): Row => ({
  access_key: AI_CREDENTIALS.aws.accessKeyId,
  secret_access_key: AI_CREDENTIALS.aws.secretAccessKey,
  region: AI_CREDENTIALS.aws.region,
  model_id: "anthropic.claude-3-5-haiku-20241022-v1:0",
  request_format: '{"anthropic_version": "bedrock-2023-05-31", "max_tokens": 64, "messages": [{"role": "user", "content": "{{ prompt }}"}]}',
  response_format: '{"content": [{"type": "text", "text": "Hi"}], "stop_reason": "end_turn"}',
  endpoint: emu.url,
  ...overrides,
});

const invokes = () => emu.requests.filter((r) => r.url.startsWith("/model/"));

describe("AwsBedrockModel source", () => {
  it("accepts the reference's settings unchanged", () => {
    const { endpoint: _ours, ...reference } = config();
    expect(validateConfiguration(awsBedrockModelSourceDefinition, reference)).toEqual([]);
  });

  it("invokes the model once per row, signed", async () => {
    const rows = await readAll(awsBedrockModelSource, config(), [{ id: 1, prompt: "hello" }, { id: 2, prompt: "bye" }]);
    expect(rows.map((r) => [r.id, r.completion, r.stop_reason, r.prediction_error])).toEqual([
      [1, "Echo: hello", "end_turn", null],
      [2, "Echo: bye", "end_turn", null],
    ]);
    expect(invokes()[0].url).toBe("/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/invoke");
    expect(invokes()[0].headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIAEMULATOR0001\/\d{8}\/us-east-1\/bedrock\/aws4_request/);
  });

  it("invokes the inference profile when there is one, and wraps a Mistral prompt as Mistral wants", async () => {
    await readAll(awsBedrockModelSource, config({ inference_profile: "us.anthropic.claude-3-5-haiku-20241022-v1:0" }), [{ prompt: "x" }]);
    expect(invokes()[0].url).toBe("/model/us.anthropic.claude-3-5-haiku-20241022-v1%3A0/invoke");
    const mistral = config({ model_id: "mistral.mistral-7b-instruct-v0:2", request_format: '{"prompt": "{{ prompt }}", "max_tokens": 50}', response_format: '{"outputs": []}' });
    const [row] = await readAll(awsBedrockModelSource, mistral, [{ prompt: "bonjour" }]);
    expect(JSON.parse(invokes()[1].body).prompt).toBe("<s>[INST] bonjour [/INST]");
    expect(row).toMatchObject({ completion: "Echo: bonjour", outputs: [{ text: "Echo: bonjour", stop_reason: "stop" }] });
  });

  it("reports a refused row (ValidationException) and retries a ThrottlingException after Retry-After", async () => {
    emu.throttleNext(1);
    const rows = await readAll(awsBedrockModelSource, config({ concurrency: 1 }), [{ prompt: "ok" }, { prompt: "REFUSE" }]);
    expect(rows[0]).toMatchObject({ completion: "Echo: ok", prediction_error: null });
    expect(rows[1]).toMatchObject({
      completion: null,
      content: null,
      prediction_error: "Amazon Bedrock answered ValidationException (HTTP 400): Malformed input request: the prompt is refused by the emulator.",
    });
    expect(emu.state.throttled).toBe(1);
    expect(emu.state.calls.bedrock).toBe(3);
  });

  it("checks with a sample invocation; a wrong secret fails on the signature without showing it", async () => {
    expect(await awsBedrockModelSource.check(config())).toEqual({
      ok: true,
      details: "Connected to Amazon Bedrock in us-east-1: anthropic.claude-3-5-haiku-20241022-v1:0 answered a sample request.",
    });
    const wrong = await awsBedrockModelSource.check(config({ secret_access_key: "not/the/secret/key/0099" }));
    expect(wrong.ok).toBe(false);
    expect(wrong.details).toMatch(/InvalidSignatureException \(HTTP 403\): The request signature we calculated does not match/);
    expect(wrong.details).not.toContain("not/the/secret/key/0099");
  });

  it("refuses an endpoint at a private address unless allowed", async () => {
    const result = await awsBedrockModelSource.check(config({ endpoint: "http://169.254.169.254" }));
    expect(result).toEqual({ ok: false, details: expect.stringMatching(/metadata/) });
    expect(invokes()).toHaveLength(0);
  });
});

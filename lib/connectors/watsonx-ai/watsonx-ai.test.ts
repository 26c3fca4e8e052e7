// WatsonxAi source against tests/emulators/ai-models.ts (IBM Cloud IAM and watsonx.ai deployments as
// IBM's API reference describes them): ML predictions, prompt-template generation, its stream
// assembled, a refused row, 429, a token renewed after a 401.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Row } from "../types";
import { validateConfiguration } from "../registry";
import { AI_CREDENTIALS, readAll, startAiModels } from "@/tests/support/ai-models";
import type { AiModelsEmulator } from "@/tests/emulators/ai-models";
import { watsonxAiSource } from "./source";
import { watsonxAiSourceDefinition } from "./definition";

let emu: AiModelsEmulator;
beforeAll(async () => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  emu = await startAiModels();
});
afterAll(() => emu.close());
beforeEach(() => emu.reset());

const prompt = (overrides: Row = {}): Row => ({
  api_key: AI_CREDENTIALS.ibmApiKey,
  is_stream: false,
  region: "us-south",
  deployment_id: "dep-prompt-1",
  model_type: "Prompt template",
  config: { timeout: "30" },
  request_format: '{"parameters": {"prompt_variables": {"question": "{{ question }}"}}}',
  response_format: '{"model_id": "ibm/granite-13b-instruct-v2", "results": [{"generated_text": "Hi", "stop_reason": "eos_token"}]}',
  api_url: emu.url,
  iam_url: `${emu.url}/identity/token`,
  ...overrides,
});

const ml = (overrides: Row = {}): Row =>
  prompt({
    model_type: "Machine learning model",
    deployment_id: "dep-ml-1",
    request_format: '{"input_data": [{"fields": ["text"], "values": [["{{ text }}"]]}]}',
    response_format: { label: "predictions.0.values.0.0", positive: "predictions.0.values.0.1.1" },
    ...overrides,
  });

describe("WatsonxAi source", () => {
  it("accepts the reference's settings unchanged", () => {
    const { api_url: _a, iam_url: _i, ...reference } = prompt();
    expect(validateConfiguration(watsonxAiSourceDefinition, reference)).toEqual([]);
    expect(validateConfiguration(watsonxAiSourceDefinition, { ...reference, model_type: "LLM" }).map((e) => e.path)).toEqual(["model_type"]);
  });

  it("scores rows with a machine learning deployment, one IAM token for all", async () => {
    const rows = await readAll(watsonxAiSource, ml(), [{ id: 1, text: "good service" }, { id: 2, text: "slow" }]);
    expect(rows.map((r) => [r.id, r.label, r.positive, r.prediction_error])).toEqual([
      [1, "positive", 0.9, null],
      [2, "negative", 0.2, null],
    ]);
    const calls = emu.requests.filter((r) => r.url.startsWith("/ml/"));
    expect(calls.map((r) => r.url)).toEqual(Array(2).fill("/ml/v4/deployments/dep-ml-1/predictions?version=2021-05-01"));
    expect(emu.requests.filter((r) => r.url === "/identity/token").length).toBeLessThanOrEqual(1);
  });

  it("generates text with a prompt template, streamed or not, to the same answer", async () => {
    const [plain] = await readAll(watsonxAiSource, prompt(), [{ question: "what is watsonx" }]);
    const [streamed] = await readAll(watsonxAiSource, prompt({ is_stream: true }), [{ question: "what is watsonx" }]);
    expect(plain.completion).toBe("Echo: what is watsonx");
    expect(streamed.completion).toBe("Echo: what is watsonx");
    expect(streamed.results).toEqual([{ generated_text: "Echo: what is watsonx", generated_token_count: 4, input_token_count: 4, stop_reason: "eos_token" }]);
    expect(streamed.results).toEqual(plain.results);
    expect(emu.requests.filter((r) => r.url.startsWith("/ml/")).map((r) => r.url)).toEqual([
      "/ml/v1/deployments/dep-prompt-1/text/generation?version=2021-05-01",
      "/ml/v1/deployments/dep-prompt-1/text/generation_stream?version=2021-05-01",
    ]);
  });

  it("reports a refused row and honours a 429", async () => {
    emu.throttleNext(1);
    const rows = await readAll(watsonxAiSource, prompt({ concurrency: 1 }), [{ question: "fine" }, { question: "REFUSE" }]);
    expect(rows[0]).toMatchObject({ completion: "Echo: fine", prediction_error: null });
    expect(rows[1]).toMatchObject({ completion: null, results: null, prediction_error: "watsonx.ai answered HTTP 400: The input is refused by the emulator." });
    expect(emu.state.throttled).toBe(1);
  });

  it("asks IAM for a new token when the API refuses the cached one", async () => {
    await readAll(watsonxAiSource, prompt(), [{ question: "one" }]);
    emu.state.ibmTokens.clear();
    const [row] = await readAll(watsonxAiSource, prompt(), [{ question: "two" }]);
    expect(row.completion).toBe("Echo: two");
  });

  it("checks the deployment is listed and ready; a wrong API key fails at IAM without showing it", async () => {
    expect(await watsonxAiSource.check(prompt())).toEqual({ ok: true, details: 'Connected to watsonx.ai: the deployment "summary prompt" is ready.' });
    expect((await watsonxAiSource.check(prompt({ deployment_id: "dep-unknown" }))).details).toMatch(/lists no deployment with this deployment_id among the 2/);
    const wrong = await watsonxAiSource.check(prompt({ api_key: "ibm-wrong-key-0042" }));
    expect(wrong).toEqual({ ok: false, details: "IBM Cloud IAM refused the API key: Provided API key could not be found. (BXNIM0415E). Check api_key." });
  });
});

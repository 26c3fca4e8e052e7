// DatabricksModel source against tests/emulators/ai-models.ts (Model Serving as Databricks' REST
// reference describes it): chat and custom-model endpoints, a refused row, 429, the endpoint check.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Row } from "../types";
import { validateConfiguration } from "../registry";
import { AI_CREDENTIALS, readAll, startAiModels } from "@/tests/support/ai-models";
import type { AiModelsEmulator } from "@/tests/emulators/ai-models";
import { databricksModelSource } from "./source";
import { databricksModelSourceDefinition } from "./definition";

let emu: AiModelsEmulator;
beforeAll(async () => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  emu = await startAiModels();
});
afterAll(() => emu.close());
beforeEach(() => emu.reset());

const config = (overrides: Row = {}): Row => ({
  databricks_host: "dbc-a1b2c3d4-e5f6.cloud.databricks.com",
  token: AI_CREDENTIALS.databricksToken,
  endpoint: "databricks-meta-llama-3-3-70b-instruct",
  config: { timeout: "30" },
  request_format: '{"messages": [{"role": "user", "content": "{{ prompt }}"}], "max_tokens": 64}',
  response_format: '{"choices": [], "usage": {}}',
  base_url: emu.url,
  ...overrides,
});

describe("DatabricksModel source", () => {
  it("accepts the reference's settings unchanged", () => {
    const { base_url: _ours, ...reference } = config();
    expect(validateConfiguration(databricksModelSourceDefinition, reference)).toEqual([]);
  });

  it("queries a chat endpoint once per row", async () => {
    const rows = await readAll(databricksModelSource, config(), [{ id: 1, prompt: "hi" }, { id: 2, prompt: "there" }, { id: 3, prompt: "you" }]);
    expect(rows.map((r) => [r.id, r.completion, r.prediction_error])).toEqual([
      [1, "Echo: hi", null],
      [2, "Echo: there", null],
      [3, "Echo: you", null],
    ]);
    expect(rows[0].usage).toMatchObject({ completion_tokens: 2 });
    const sent = emu.requests.filter((r) => r.url.endsWith("/invocations"));
    expect(sent.map((r) => r.url)).toEqual(Array(3).fill("/serving-endpoints/databricks-meta-llama-3-3-70b-instruct/invocations"));
    expect(sent[0].headers.authorization).toBe(`Bearer ${AI_CREDENTIALS.databricksToken}`);
  });

  it("queries a custom model with dataframe_records, mapping paths to columns, a refused row on its own", async () => {
    const custom = config({
      endpoint: "churn-model",
      request_format: '{"dataframe_records": [{"text": "{{ text }}"}]}',
      response_format: { churn: "predictions.0" },
    });
    const rows = await readAll(databricksModelSource, custom, [{ text: "good customer" }, { text: "REFUSE" }, { text: "meh" }]);
    expect(rows.map((r) => [r.churn, r.prediction_error])).toEqual([
      [1, null],
      [null, "Databricks answered HTTP 400: Model raised an exception on this input."],
      [0, null],
    ]);
  });

  it("honours a 429's Retry-After", async () => {
    emu.throttleNext(1);
    const [row] = await readAll(databricksModelSource, config(), [{ prompt: "x" }]);
    expect(row.completion).toBe("Echo: x");
    expect(emu.state.calls.databricks).toBe(2);
  });

  it("checks the endpoint's state", async () => {
    expect(await databricksModelSource.check(config())).toEqual({ ok: true, details: 'Connected to Databricks: the serving endpoint "databricks-meta-llama-3-3-70b-instruct" is ready.' });
    emu.state.endpointReady = false;
    expect((await databricksModelSource.check(config())).details).toMatch(/is not ready \(state NOT_READY/);
    expect((await databricksModelSource.check(config({ endpoint: "missing" }))).details).toMatch(/HTTP 404\): Endpoint with name 'missing' does not exist\./);
    const wrong = await databricksModelSource.check(config({ token: "dapi-wrong-token-000" }));
    expect(wrong).toEqual({ ok: false, details: "Databricks refused the credentials (HTTP 401): Invalid access token." });
  });

  it("refuses a host that is not a host name", async () => {
    await expect(databricksModelSource.discover(config({ databricks_host: "evil.com/path?x=" }))).rejects.toThrow(/must be the workspace's host name/);
  });
});

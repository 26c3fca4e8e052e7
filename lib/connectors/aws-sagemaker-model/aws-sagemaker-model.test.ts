// AwsSagemakerModel source against tests/emulators/ai-models.ts (SageMaker Runtime's InvokeEndpoint as
// the AWS API reference describes it, SigV4 signatures recomputed): through
// @aws-sdk/client-sagemaker-runtime.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Row } from "../types";
import { validateConfiguration } from "../registry";
import { AI_CREDENTIALS, readAll, startAiModels } from "@/tests/support/ai-models";
import type { AiModelsEmulator } from "@/tests/emulators/ai-models";
import { awsSagemakerModelSource } from "./source";
import { awsSagemakerModelSourceDefinition } from "./definition";

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
  endpoint_name: "churn-xgboost-endpoint",
  request_format: '{"instances": [{"text": "{{ text }}"}]}',
  response_format: { score: "predictions[0].score" },
  endpoint: emu.url,
  ...overrides,
});

const invokes = () => emu.requests.filter((r) => r.url.startsWith("/endpoints/"));

describe("AwsSagemakerModel source", () => {
  it("accepts the reference's settings unchanged", () => {
    const { endpoint: _ours, ...reference } = config({ response_format: '{"predictions": [{"score": 0.4}]}' });
    expect(validateConfiguration(awsSagemakerModelSourceDefinition, reference)).toEqual([]);
  });

  it("invokes the endpoint once per row, signed, and maps the answer", async () => {
    const rows = await readAll(awsSagemakerModelSource, config(), [{ id: 1, text: "good" }, { id: 2, text: "bad" }, { id: 3, text: "good too" }]);
    expect(rows.map((r) => [r.id, r.score, r.prediction_error])).toEqual([
      [1, 0.9, null],
      [2, 0.1, null],
      [3, 0.9, null],
    ]);
    expect(invokes()[0].url).toBe("/endpoints/churn-xgboost-endpoint/invocations");
    expect(invokes()[0].headers.authorization).toMatch(/Credential=AKIAEMULATOR0001\/\d{8}\/us-east-1\/sagemaker\/aws4_request/);
    expect(JSON.parse(invokes()[0].body)).toEqual({ instances: [{ text: "good" }] });
  });

  it("reports a ModelError on its row and retries a ThrottlingException after Retry-After", async () => {
    emu.throttleNext(1);
    const rows = await readAll(awsSagemakerModelSource, config({ concurrency: 1 }), [{ text: "REFUSE" }, { text: "good" }]);
    expect(rows[0]).toMatchObject({ score: null, prediction_error: expect.stringMatching(/^Amazon SageMaker answered ModelError \(HTTP 424\): Received client error \(400\) from primary/) });
    expect(rows[1]).toMatchObject({ score: 0.9, prediction_error: null });
    expect(emu.state.throttled).toBe(1);
  });

  it("checks with a sample invocation; an unknown endpoint or key fails with AWS's reason", async () => {
    expect(await awsSagemakerModelSource.check(config())).toEqual({
      ok: true,
      details: 'Connected to Amazon SageMaker in us-east-1: the endpoint "churn-xgboost-endpoint" answered a sample request.',
    });
    expect((await awsSagemakerModelSource.check(config({ endpoint_name: "missing" }))).details).toMatch(/ValidationError \(HTTP 400\): Endpoint missing of account 123456789012 not found\./);
    expect((await awsSagemakerModelSource.check(config({ access_key: "AKIAOTHER0000" }))).details).toMatch(/UnrecognizedClientException \(HTTP 403\): The security token included in the request is invalid\./);
  });
});

// VertexModel source against tests/emulators/ai-models.ts (Google OAuth with a signed service account
// assertion, and Vertex AI endpoints as Google's REST reference describes them): rawPredict as the
// reference calls it, predict, a publisher model's generateContent, a refused row, 429.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Row } from "../types";
import { validateConfiguration } from "../registry";
import { AI_CREDENTIALS, readAll, startAiModels } from "@/tests/support/ai-models";
import type { AiModelsEmulator } from "@/tests/emulators/ai-models";
import { vertexModelSource } from "./source";
import { vertexModelSourceDefinition } from "./definition";

let emu: AiModelsEmulator;
beforeAll(async () => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  emu = await startAiModels();
});
afterAll(() => emu.close());
beforeEach(() => emu.reset());

const config = (overrides: Row = {}): Row => ({
  project_id: "acme-ml",
  endpoint_id: "1234567890",
  region: "us-central1",
  credentials_json: {
    type: "service_account",
    project_id: "acme-ml",
    private_key_id: "k1",
    // As some tools paste it: line breaks as "\n" text.
    private_key: AI_CREDENTIALS.google.privateKey.replace(/\n/g, "\\n"),
    client_email: AI_CREDENTIALS.google.clientEmail,
    client_id: "1",
    auth_uri: "https://accounts.google.com/o/oauth2/auth",
    token_uri: `${emu.url}/token`,
    auth_provider_x509_cert_url: "https://www.googleapis.com/oauth2/v1/certs",
    client_x509_cert_url: "https://www.googleapis.com/robot/v1/metadata/x509/x",
    universe_domain: "googleapis.com",
  },
  request_format: '{"instances": [{"text": "{{ text }}"}]}',
  response_format: '{"predictions": [{"label": "positive", "score": 0.9}], "deployedModelId": "987"}',
  api_base_url: emu.url,
  ...overrides,
});

const calls = () => emu.requests.filter((r) => r.url.startsWith("/v1/projects/"));

describe("VertexModel source", () => {
  it("accepts the reference's settings unchanged", () => {
    const { api_base_url: _ours, ...reference } = config();
    expect(validateConfiguration(vertexModelSourceDefinition, reference)).toEqual([]);
  });

  it("calls rawPredict once per row with a token from the signed assertion", async () => {
    const rows = await readAll(vertexModelSource, config(), [{ id: 1, text: "a good day" }, { id: 2, text: "rain" }]);
    expect(rows.map((r) => [r.id, r.predictions, r.deployedModelId, r.prediction_error])).toEqual([
      [1, [{ label: "positive", score: 0.9 }], "987", null],
      [2, [{ label: "negative", score: 0.2 }], "987", null],
    ]);
    expect(calls().map((r) => r.url)).toEqual(Array(2).fill("/v1/projects/acme-ml/locations/us-central1/endpoints/1234567890:rawPredict"));
    expect(calls()[0].headers.authorization).toMatch(/^Bearer ya29\./);
  });

  it("calls predict when asked, and a publisher model with generateContent", async () => {
    await readAll(vertexModelSource, config({ vertex_method: "predict" }), [{ text: "x" }]);
    expect(calls()[0].url).toMatch(/endpoints\/1234567890:predict$/);
    const gemini = config({
      endpoint_id: "publishers/google/models/gemini-2.0-flash",
      request_format: '{"contents": [{"role": "user", "parts": [{"text": "{{ text }}"}]}]}',
      response_format: '{"candidates": [], "usageMetadata": {}}',
    });
    const [row] = await readAll(vertexModelSource, gemini, [{ text: "hello gemini" }]);
    expect(row.completion).toBe("Echo: hello gemini");
    expect(calls()[1].url).toBe("/v1/projects/acme-ml/locations/us-central1/publishers/google/models/gemini-2.0-flash:generateContent");
  });

  it("reports a refused row, honours a 429, and renews a token Google no longer takes", async () => {
    emu.throttleNext(1);
    const rows = await readAll(vertexModelSource, config({ concurrency: 1 }), [{ text: "REFUSE" }, { text: "good" }]);
    expect(rows[0]).toMatchObject({ predictions: null, prediction_error: "Vertex AI answered HTTP 400: The model server failed to score an instance. (after 2 attempts)" });
    expect(rows[1]).toMatchObject({ predictions: [{ label: "positive", score: 0.9 }], prediction_error: null });
    expect(emu.state.throttled).toBe(1);
    emu.state.googleTokens.clear();
    const [again] = await readAll(vertexModelSource, config(), [{ text: "good" }]);
    expect(again.prediction_error).toBeNull();
  });

  it("checks the endpoint has a model deployed; a key Google refuses fails without showing it", async () => {
    expect(await vertexModelSource.check(config())).toEqual({ ok: true, details: 'Connected to Vertex AI: endpoint "sentiment" with 1 deployed model.' });
    expect((await vertexModelSource.check(config({ endpoint_id: "404" }))).details).toMatch(/HTTP 404\): Endpoint projects\/acme-ml\/locations\/us-central1\/endpoints\/404 not found\./);
    const other = config();
    (other.credentials_json as Row).client_email = "someone-else@acme-ml.iam.gserviceaccount.com";
    const refused = await vertexModelSource.check(other);
    expect(refused).toEqual({ ok: false, details: "Google refused the service account (invalid_grant: Invalid JWT Signature.)." });
  });
});

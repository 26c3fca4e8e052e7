// The AI model sources over the REST API, against tests/emulators/ai-models.ts on 127.0.0.1: for
// Anthropic and GenericOpenAI (streamed, as the reference's is_stream asks) and DatabricksModel,
// the reference's settings create a connector, its model's input rows sync into PostgreSQL with a
// refused row carrying its reason, and the unchanged re-run sends nothing.
import { expect, test } from "@playwright/test";
import { dataWorkspace, ensureTestDatabase, pgConfiguration, sql, sqlRows, unique, type DataWorkspace } from "../support/data";
import { trigger, waitForRun } from "../support/run-scenarios";
import { AI_CREDENTIALS, startAiModels } from "../../tests/support/ai-models";
import type { AiModelsEmulator } from "../../tests/emulators/ai-models";

test.describe.configure({ timeout: 180_000 });

let ws: DataWorkspace;
let emu: AiModelsEmulator;
let destinationId: number;

const PROMPT = '[{"role": "user", "content": "{{ prompt }}"}]';
const CONNECTORS: { name: string; configuration: () => Record<string, unknown> }[] = [
  {
    name: "Anthropic",
    configuration: () => ({
      api_key: AI_CREDENTIALS.anthropicKey,
      base_url: emu.url,
      is_stream: true,
      config: { timeout: "30" },
      request_format: `{"model": "claude-3-5-haiku-latest", "max_tokens": 64, "messages": ${PROMPT}}`,
      response_format: '{"stop_reason": "end_turn"}',
    }),
  },
  {
    name: "GenericOpenAI",
    configuration: () => ({
      url: `${emu.url}/v1/chat/completions`,
      api_key: AI_CREDENTIALS.openAiKey,
      is_stream: true,
      config: { timeout: "30" },
      request_format: `{"model": "gpt-4o-mini", "messages": ${PROMPT}}`,
      response_format: '{"object": "chat.completion"}',
    }),
  },
  {
    name: "DatabricksModel",
    configuration: () => ({
      databricks_host: "dbc-a1b2c3d4-e5f6.cloud.databricks.com",
      base_url: emu.url,
      token: AI_CREDENTIALS.databricksToken,
      endpoint: "databricks-meta-llama-3-3-70b-instruct",
      request_format: `{"messages": ${PROMPT}, "max_tokens": 64}`,
      response_format: '{"object": "chat.completion"}',
    }),
  },
];

test.beforeAll(async () => {
  await ensureTestDatabase();
  emu = await startAiModels();
  ws = await dataWorkspace("ai-models");
  const destination = await ws.admin.post("/api/v1/connectors", {
    connector: { name: unique("pg"), connector_type: "destination", connector_name: "Postgresql", configuration: pgConfiguration() },
  });
  expect(destination.status(), await destination.text()).toBe(201);
  destinationId = Number((await destination.json()).data.id);
});
test.afterAll(async () => {
  await ws?.dispose();
  await emu?.close();
});

for (const connector of CONNECTORS) {
  test(`${connector.name}: input rows sync into PostgreSQL, a refused row with its reason; the unchanged re-run sends nothing`, async () => {
    const dst = unique(`e2e_${connector.name.toLowerCase()}`);
    await sql(`CREATE TABLE ${dst} (id integer PRIMARY KEY, prompt text, completion text, prediction_error text)`);
    try {
      const source = await ws.admin.post("/api/v1/connectors", {
        connector: { name: unique("model"), connector_type: "source", connector_name: connector.name, configuration: connector.configuration() },
      });
      expect(source.status(), await source.text()).toBe(201);
      const sourceId = Number((await source.json()).data.id);
      const check = await ws.admin.post(`/api/v1/connectors/${sourceId}/check`, {});
      expect((await check.json()).result, "check").toBe("success");
      await ws.admin.get(`/api/v1/connectors/${destinationId}/discover?refresh=true`);

      const inputs = [
        { id: 1, prompt: "first question" },
        { id: 2, prompt: "REFUSE this one" },
        { id: 3, prompt: "third question" },
      ];
      const model = await ws.admin.post("/api/v1/models", {
        model: { name: unique("m"), query: JSON.stringify(inputs), query_type: "ai_ml", primary_key: "id", connector_id: sourceId },
      });
      expect(model.status(), await model.text()).toBe(201);
      const sync = await ws.admin.post("/api/v1/syncs", {
        sync: {
          name: unique("sync"),
          source_id: sourceId,
          destination_id: destinationId,
          model_id: Number((await model.json()).data.id),
          schedule_type: "manual",
          sync_mode: "incremental",
          stream_name: dst,
          configuration: ["id", "prompt", "completion", "prediction_error"].map((c) => ({ from: c, to: c, mapping_type: "standard" })),
        },
      });
      expect(sync.status(), await sync.text()).toBe(200);
      const syncId = Number((await sync.json()).data.id);

      const first = await waitForRun(ws.admin, syncId, await trigger(ws.admin, syncId));
      expect(first, JSON.stringify(first)).toMatchObject({ status: "success", total_rows: 3, successful_rows: 3 });
      const rows = await sqlRows<{ id: number; completion: string | null; prediction_error: string | null }>(`SELECT id, completion, prediction_error FROM ${dst} ORDER BY id`);
      expect(rows.map((r) => [r.id, r.completion])).toEqual([
        [1, "Echo: first question"],
        [2, null],
        [3, "Echo: third question"],
      ]);
      expect(rows[0].prediction_error).toBeNull();
      expect(rows[1].prediction_error).toMatch(/HTTP 400/);

      const same = await waitForRun(ws.admin, syncId, await trigger(ws.admin, syncId));
      expect(same, JSON.stringify(same)).toMatchObject({ status: "success", total_rows: 0 });
    } finally {
      await sql(`DROP TABLE IF EXISTS ${dst}`);
    }
  });
}

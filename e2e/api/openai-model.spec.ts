// The OpenAI-compatible source over the REST API, against an emulator of OpenAI's API on 127.0.0.1:
// create the connector (key masked), check it (bad key → failure), preview a model's rows through
// query_source, and run a sync that writes embeddings into PostgreSQL.
import { expect, test } from "@playwright/test";
import { expectError } from "../support/api";
import {
  dataWorkspace,
  ensureTestDatabase,
  MASK,
  pgConfiguration,
  sql,
  sqlRows,
  unique,
  type DataWorkspace,
} from "../support/data";
import { trigger, waitForRun } from "../support/run-scenarios";
import {
  emulatedEmbedding,
  startOpenAiEmulator,
  type OpenAiEmulator,
} from "../../tests/support/openai-emulator";

const KEY = `sk-e2e-${unique("key")}`;
const dst = unique("e2e_embeddings");
let ws: DataWorkspace;
let api: OpenAiEmulator;
let sourceId: number;

const configuration = (overrides: Record<string, unknown> = {}) => ({
  base_url: api.url,
  api_key: KEY,
  model: "gpt-test-mini",
  timeout: 30,
  ...overrides,
});

async function created(res: {
  status(): number;
  text(): Promise<string>;
  json(): Promise<{ data: { id: string; attributes: Record<string, unknown> } }>;
}) {
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()).data;
}

test.beforeAll(async () => {
  await ensureTestDatabase();
  await sql(`CREATE TABLE ${dst} (id integer PRIMARY KEY, text text, embedding double precision[])`);
  api = await startOpenAiEmulator({ apiKey: KEY, models: ["gpt-test-mini", "text-embedding-test"] });
  ws = await dataWorkspace("openai");
  const source = await created(
    await ws.admin.post("/api/v1/connectors", {
      connector: {
        name: unique("openai"),
        connector_type: "source",
        connector_name: "OpenAI",
        configuration: configuration(),
      },
    }),
  );
  sourceId = Number(source.id);
});
test.afterAll(async () => {
  await ws?.dispose();
  await api?.close();
  await sql(`DROP TABLE IF EXISTS ${dst}`);
});

test("the definition is listed under ai_ml with its icon", async () => {
  const list = (await (
    await ws.viewer.get("/api/v1/connector_definitions?type=source&category=ai_ml")
  ).json()) as { name: string; icon: string }[];
  expect(list.find((d) => d.name === "OpenAI")).toMatchObject({
    icon: expect.stringMatching(/^http:\/\/.+\/icons\/openai\.svg$/),
  });
});

test("the API key is masked in every answer; check lists the models, a wrong key fails with 401", async () => {
  for (const res of [
    await ws.admin.get(`/api/v1/connectors/${sourceId}`),
    await ws.viewer.get(`/api/v1/connectors/${sourceId}`),
    await ws.admin.get("/api/v1/connectors?type=source&category=ai_ml"),
  ]) {
    const text = await res.text();
    expect(res.status(), text).toBe(200);
    expect(text).not.toContain(KEY);
  }
  expect(
    (await (await ws.admin.get(`/api/v1/connectors/${sourceId}`)).json()).data.attributes.configuration
      .api_key,
  ).toBe(MASK);

  const ok = await ws.admin.post(`/api/v1/connectors/${sourceId}/check`, {});
  expect(ok.status(), await ok.text()).toBe(200);
  expect(await ok.json()).toMatchObject({
    result: "success",
    details: expect.stringContaining("gpt-test-mini"),
  });
  expect(api.requests.at(-1)).toMatchObject({
    method: "GET",
    path: "/v1/models",
    authorization: `Bearer ${KEY}`,
  });

  // The stored key, sent back masked, is kept; a wrong one is refused by the server.
  const masked = await ws.admin.post(`/api/v1/connectors/${sourceId}/check`, {
    configuration: configuration({ api_key: MASK }),
  });
  expect((await masked.json()).result).toBe("success");
  const wrong = await (
    await ws.admin.post(`/api/v1/connectors/${sourceId}/check`, {
      configuration: configuration({ api_key: "sk-wrong" }),
    })
  ).json();
  expect(wrong).toMatchObject({
    result: "failure",
    details: expect.stringMatching(/refused the API key \(HTTP 401\)/),
  });
});

test("outbound policy: a metadata address is refused before any request", async () => {
  const before = api.requests.length;
  const res = await ws.admin.post("/api/v1/connector_definitions/check_connection", {
    name: "OpenAI",
    connection_spec: { base_url: "http://169.254.169.254", api_key: KEY, model: "gpt-test-mini" },
  });
  const body = await res.json();
  expect(body.result).toBe("failure");
  expect(body.details).toMatch(/metadata|not allowed/i);
  expect(body.details).not.toContain(KEY);
  expect(api.requests.length).toBe(before);
});

test("a chat model previews its rows through query_source; another workspace gets 404", async ({
  request,
}) => {
  const query = JSON.stringify({
    prompt_template: "Summarise: {{ review }}",
    inputs: [
      { id: 1, review: "boils fast" },
      { id: 2, review: "burns bread" },
    ],
  });
  const model = await created(
    await ws.admin.post("/api/v1/models", {
      model: { name: unique("chat"), query, query_type: "ai_ml", primary_key: "id", connector_id: sourceId },
    }),
  );
  expect(model.attributes).toMatchObject({ query_type: "ai_ml", query });

  const preview = await ws.admin.post(`/api/v1/connectors/${sourceId}/query_source`, { query, limit: 5 });
  expect(preview.status(), await preview.text()).toBe(200);
  const body = await preview.json();
  expect(body.data).toEqual([
    expect.objectContaining({
      id: 1,
      review: "boils fast",
      completion: "Echo: Summarise: boils fast",
      finish_reason: "stop",
    }),
    expect.objectContaining({
      id: 2,
      review: "burns bread",
      completion: "Echo: Summarise: burns bread",
      finish_reason: "stop",
    }),
  ]);
  expect(body.columns.map((c: { name: string }) => c.name)).toEqual([
    "id",
    "review",
    "completion",
    "finish_reason",
    "total_tokens",
    "prediction_error",
  ]);

  const bad = await expectError(
    await ws.admin.post(`/api/v1/connectors/${sourceId}/query_source`, { query: "SELECT 1" }),
    422,
    "validation_failed",
  );
  expect(bad.message).toMatch(/JSON array of input rows/);

  // "Too many requests" and an overloaded server are retried (after Retry-After: 0): the preview succeeds.
  const before = api.requests.length;
  api.failNext({ status: 429, headers: { "retry-after": "0" } });
  api.failNext({ status: 503, headers: { "retry-after": "0" } });
  const retried = await ws.admin.post(`/api/v1/connectors/${sourceId}/query_source`, {
    query: JSON.stringify([{ id: 3, text: "again" }]),
  });
  expect(retried.status(), await retried.text()).toBe(200);
  expect((await retried.json()).data[0]).toMatchObject({ id: 3, completion: "Echo: again" });
  expect(api.requests.length - before).toBe(3);
  const other = await dataWorkspace("openai-other", request);
  await expectError(
    await other.admin.post(`/api/v1/connectors/${sourceId}/query_source`, { query }),
    404,
    "not_found",
  );
});

test("an embeddings model syncs a vector column into PostgreSQL", async () => {
  const destination = await created(
    await ws.admin.post("/api/v1/connectors", {
      connector: {
        name: unique("pg"),
        connector_type: "destination",
        connector_name: "Postgresql",
        configuration: pgConfiguration(),
      },
    }),
  );
  const discovered = await ws.admin.get(`/api/v1/connectors/${destination.id}/discover?refresh=true`);
  expect(discovered.status(), await discovered.text()).toBe(200);
  const inputs = [
    { id: 1, text: "alpha" },
    { id: 2, text: "beta" },
    { id: 3, text: "gamma" },
  ];
  const query = JSON.stringify({ operation: "embeddings", model: "text-embedding-test", inputs });
  const model = await created(
    await ws.admin.post("/api/v1/models", {
      model: { name: unique("embed"), query, query_type: "ai_ml", primary_key: "id", connector_id: sourceId },
    }),
  );
  const res = await ws.admin.post("/api/v1/syncs", {
    sync: {
      name: unique("sync"),
      source_id: sourceId,
      destination_id: Number(destination.id),
      model_id: Number(model.id),
      schedule_type: "manual",
      sync_mode: "full_refresh",
      stream_name: dst,
      configuration: [
        { from: "id", to: "id", mapping_type: "standard" },
        { from: "text", to: "text", mapping_type: "standard" },
        { from: "embedding", to: "embedding", mapping_type: "standard" },
      ],
    },
  });
  // The reference answers a created sync with 200.
  expect(res.status(), await res.text()).toBe(200);
  const sync = (await res.json()).data;
  const run = await waitForRun(ws.admin, Number(sync.id), await trigger(ws.admin, Number(sync.id)));
  expect(run.status, JSON.stringify(run)).toBe("success");
  const rows = await sqlRows<{ id: number; text: string; embedding: number[] }>(
    `SELECT id, text, embedding FROM ${dst} ORDER BY id`,
  );
  expect(rows).toEqual(inputs.map((r) => ({ ...r, embedding: emulatedEmbedding(r.text) })));
});

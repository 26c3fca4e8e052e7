// The older model sources (HttpModel, OpenAI) through the engine into PostgreSQL: the endpoint refuses
// one input row (HTTP 422 / 400) and answers the first request "too many requests" with Retry-After.
// The run must wait the 429 out, write every row, and land the refused row with null outputs and the
// endpoint's reason in prediction_error (a model refusal is data about the row, not a failed record).
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Row } from "@/lib/connectors/types";
import { json, startHttpServer } from "@/tests/support/connectors";
import { createScratchDatabase, useTestDatabase } from "@/tests/support/db";
import { emulatedEmbedding, startOpenAiEmulator } from "@/tests/support/openai-emulator";
import { executeRun } from "./execute-run";
import { stopEngine, triggerSync } from "./index";
import { catalogOf, createFixture, pgConnectorConfig, reloadRun, sql, tableStream } from "./test-support";

useTestDatabase();

let destination: { url: string; drop(): Promise<void> };
const closers: (() => Promise<void> | void)[] = [];
const INPUTS = [1, 2, 3, 4, 5].map((id) => ({ id, text: id === 3 ? "" : `text ${id}` }));

beforeAll(async () => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  destination = await createScratchDatabase("ds_model_rows");
});
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});
afterAll(async () => {
  await stopEngine();
  await destination?.drop();
});

async function syncModel(source: { connectorName: string; config: Row }, table: string, output: string, outputType = "text") {
  await sql(destination.url, `CREATE TABLE ${table} (id bigint PRIMARY KEY, output ${outputType}, prediction_error text)`);
  const f = await createFixture({
    sourceUrl: destination.url,
    source,
    destination: { connectorName: "Postgresql", config: pgConnectorConfig(destination.url), catalog: catalogOf(tableStream(table, { primary_key: ["id"] })) },
    query: JSON.stringify(INPUTS),
    primaryKey: "id",
    sync: {
      syncMode: "full_refresh",
      configuration: [
        { from: "id", to: "id", mapping_type: "standard" },
        { from: output, to: "output", mapping_type: "standard" },
        { from: "prediction_error", to: "prediction_error", mapping_type: "standard" },
      ],
    },
  });
  const created = await triggerSync(f.workspaceId, f.syncId);
  await executeRun(created.id);
  const run = await reloadRun(created.id);
  const rows = await sql<{ id: string; output: unknown; prediction_error: string | null }>(destination.url, `SELECT id::text, output, prediction_error FROM ${table} ORDER BY id`);
  return { run, rows };
}

function expectRefusedRowStored(result: Awaited<ReturnType<typeof syncModel>>, reason: RegExp) {
  expect(result.run, JSON.stringify(result.run.error)).toMatchObject({ status: "success", successfulRows: 5, failedRows: 0 });
  expect(result.rows.map((r) => [r.id, r.output === null, r.prediction_error === null])).toEqual([
    ["1", false, true],
    ["2", false, true],
    ["3", true, false],
    ["4", false, true],
    ["5", false, true],
  ]);
  expect(result.rows[2].prediction_error).toMatch(reason);
}

describe("model sources: a refused row lands with prediction_error, a 429 is waited out", () => {
  it("HttpModel", async () => {
    const server = await startHttpServer();
    closers.push(() => server.close());
    let limited = false;
    server.setHandler((req, res) => {
      if (!limited) {
        limited = true;
        res.writeHead(429, { "content-type": "application/json", "retry-after": "1" });
        res.end(JSON.stringify({ error: "slow down" }));
        return;
      }
      const body = JSON.parse(req.body) as { text: string };
      if (body.text === "") return void json(res, 422, { detail: "text must not be empty" });
      json(res, 200, { label: `label of ${body.text}` });
    });
    const result = await syncModel(
      { connectorName: "HttpModel", config: { url_host: `${server.url}/predict`, http_method: "POST", request_format: '{"text": "{{ text }}"}', response_format: { label: "label" }, concurrency: 1, timeout: 30 } },
      "http_model_rows",
      "label",
    );
    expectRefusedRowStored(result, /HTTP 422: text must not be empty/);
    expect(result.rows[0].output).toBe("label of text 1");
    // The 429 was asked again: 5 rows, one extra request.
    expect(server.requests).toHaveLength(6);
  });

  it("OpenAI (embeddings request refused, asked again row by row)", async () => {
    const api = await startOpenAiEmulator({ models: ["text-embedding-test"] });
    closers.push(() => api.close());
    api.failNext({ status: 429, body: { error: { message: "Rate limit reached" } }, headers: { "retry-after": "1" } });
    const config = { base_url: api.url, model: "text-embedding-test", operation: "embeddings", embedding_batch_size: 2, concurrency: 1, timeout: 30 };
    const result = await syncModel({ connectorName: "OpenAI", config }, "openai_rows", "embedding", "double precision[]");
    expectRefusedRowStored(result, /HTTP 400: 'input' must be/);
    expect(result.rows[0].output).toEqual(emulatedEmbedding("text 1"));
    // The 429, [1, 2], [3, 4] refused, then 3 and 4 alone, then [5].
    expect(api.requests).toHaveLength(6);
  });
});

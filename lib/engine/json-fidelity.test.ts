// The type-fidelity suite (tests/support/type-fidelity.ts) into destinations that send JSON: the
// 19-type PostgreSQL table synced to the HTTP destination (a local server) and to an MQTT broker
// (MQTT_URL, default mqtt://127.0.0.1:1883). Each value of each payload, read exactly from the bytes
// sent, is the value model's JSON (docs/connectors.md, "Values"): numbers inside JSON as written,
// NaN and the infinities as text, never null for a value.
import { connectAsync, type MqttClient } from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseJsonExact } from "@/lib/connectors/shared/values";
import { startHttpServer, streamFor, uniqueName } from "@/tests/support/connectors";
import { createScratchDatabase, useTestDatabase } from "@/tests/support/db";
import { expectRecordValues, PG_TYPES, pgColumnsDdl, pgInsert, ROWS } from "@/tests/support/type-fidelity";
import { executeRun } from "./execute-run";
import { stopEngine, triggerSync } from "./index";
import { catalogOf, createFixture, reloadRun, sql, tableStream } from "./test-support";

useTestDatabase();

const MQTT_URL = process.env.MQTT_URL ?? "mqtt://127.0.0.1:1883";
const NAMES = ["id", ...PG_TYPES.map((c) => c.name)];
const STANDARD = NAMES.map((c) => ({ from: c, to: c, mapping_type: "standard" }));
let source: { url: string; drop(): Promise<void> };

beforeAll(async () => {
  source = await createScratchDatabase("ds_tf_json");
  await sql(source.url, `CREATE TABLE awkward (${pgColumnsDdl(PG_TYPES)})`);
  await sql(source.url, pgInsert("awkward", PG_TYPES));
});

afterAll(async () => {
  await stopEngine();
  await source?.drop();
});

async function syncTo(destination: { connectorName: string; config: Record<string, unknown>; stream: ReturnType<typeof tableStream> }) {
  const f = await createFixture({
    sourceUrl: source.url,
    destination: { connectorName: destination.connectorName, config: destination.config, catalog: catalogOf(destination.stream) },
    query: `SELECT ${NAMES.map((n) => `"${n}"`).join(", ")} FROM awkward`,
    sync: { configuration: STANDARD },
  });
  const created = await triggerSync(f.workspaceId, f.syncId);
  await executeRun(created.id);
  return reloadRun(created.id);
}

/** Each payload, parsed exactly from the text sent, checked column by column. */
function expectPayloads(bodies: string[]) {
  const payloads = bodies.map((b) => parseJsonExact(b) as Record<string, unknown>);
  expect(payloads.map((p) => p.id).sort()).toEqual([1, 2, 3, 4]);
  for (const p of payloads) expectRecordValues(p.id as number, p);
}

describe("PostgreSQL to JSON destinations, 19 awkward types", () => {
  it("the HTTP destination's request bodies carry each value exactly, or by the documented conversion", async () => {
    const server = await startHttpServer();
    try {
      const stream = tableStream("webhook", { url: server.url, batch_support: false, batch_size: 0, primary_key: undefined });
      const run = await syncTo({ connectorName: "Http", config: { destination_url: server.url, method: "POST" }, stream });
      expect(run).toMatchObject({ successfulRows: ROWS, failedRows: 0 });
      expectPayloads(server.requests.map((r) => r.body));
      // The bytes sent, not only what a parser makes of them.
      expect(server.requests.find((r) => r.body.includes('"id":1,'))?.body).toContain('"big":12345678901234567890,"dec":1.50');
    } finally {
      await server.close();
    }
  });

  it("an MQTT broker's messages carry each value exactly, or by the documented conversion", async () => {
    const prefix = uniqueName("dsync_tf");
    const subscriber: MqttClient = await connectAsync(MQTT_URL, { protocolVersion: 5 });
    const bodies: string[] = [];
    subscriber.on("message", (_topic, payload) => bodies.push(payload.toString()));
    await subscriber.subscribeAsync(`${prefix}/#`, { qos: 1 });
    try {
      const run = await syncTo({ connectorName: "Mqtt", config: { url: MQTT_URL, topic_template: `${prefix}/{{ id }}`, timeout: 5 }, stream: streamFor("messages") });
      expect(run).toMatchObject({ successfulRows: ROWS, failedRows: 0 });
      await expect.poll(() => bodies.length, { timeout: 10_000 }).toBe(ROWS);
      expectPayloads(bodies);
    } finally {
      await subscriber.endAsync();
    }
  });
});

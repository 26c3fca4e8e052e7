// The type-fidelity suite (tests/support/type-fidelity.ts) into destinations that send JSON: the
// 19-type PostgreSQL table synced to the HTTP destination (a local server) and to the brokers running
// here: MQTT (MQTT_URL, default mqtt://127.0.0.1:1883), RabbitMQ (AMQP_URL, default
// amqp://guest:guest@127.0.0.1:5672), NATS JetStream (NATS_URL, default nats://127.0.0.1:4222) and
// Redis (REDIS_URL, default redis://127.0.0.1:6379), stream and hash. Each value of each payload,
// read exactly from the bytes sent, is the value model's JSON (docs/connectors.md, "Values"): numbers
// inside JSON as written, NaN and the infinities as text, never null for a value. Redis fields are
// strings: each is the value's text (the documented conversion), and a NULL is an absent field.
import { createClient } from "@redis/client";
import { connect as amqpConnect } from "amqplib";
import { connectAsync, type MqttClient } from "mqtt";
import { connect as natsConnect } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseJsonExact } from "@/lib/connectors/shared/values";
import { startHttpServer, streamFor, uniqueName } from "@/tests/support/connectors";
import { createScratchDatabase, useTestDatabase } from "@/tests/support/db";
import { expectRecordValues, PG_TYPES, PG_TYPES_AS_JSON, pgColumnsDdl, pgInsert, ROWS } from "@/tests/support/type-fidelity";
import { executeRun } from "./execute-run";
import { stopEngine, triggerSync } from "./index";
import { catalogOf, createFixture, reloadRun, sql, tableStream } from "./test-support";

useTestDatabase();

const MQTT_URL = process.env.MQTT_URL ?? "mqtt://127.0.0.1:1883";
const AMQP_URL = new URL(process.env.AMQP_URL ?? "amqp://guest:guest@127.0.0.1:5672");
const NATS_URL = process.env.NATS_URL ?? "nats://127.0.0.1:4222";
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
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

  it("a RabbitMQ queue's messages carry each value exactly, or by the documented conversion", async () => {
    const exchange = uniqueName("dsync_tf_x");
    const connection = await amqpConnect(AMQP_URL.toString());
    const channel = await connection.createChannel();
    const { queue } = await channel.assertQueue("", { exclusive: true });
    await channel.assertExchange(exchange, "topic", { durable: false, autoDelete: false });
    await channel.bindQueue(queue, exchange, "rows.#");
    try {
      const url = new URL(AMQP_URL);
      url.username = "";
      url.password = "";
      const config = {
        url: url.toString().replace(/\/$/, ""),
        username: decodeURIComponent(AMQP_URL.username || "guest"),
        password: decodeURIComponent(AMQP_URL.password || "guest"),
        exchange_template: exchange,
        routing_key_template: "rows.{{ id }}",
        timeout: 5,
      };
      const run = await syncTo({ connectorName: "RabbitMQ", config, stream: streamFor("messages") });
      expect(run).toMatchObject({ successfulRows: ROWS, failedRows: 0 });
      const bodies: string[] = [];
      for (let m = await channel.get(queue, { noAck: true }); m; m = await channel.get(queue, { noAck: true }))
        bodies.push(m.content.toString("utf8"));
      expectPayloads(bodies);
    } finally {
      await channel.deleteExchange(exchange);
      await connection.close();
    }
  });

  it("a NATS JetStream stream's messages carry each value exactly, or by the documented conversion", async () => {
    const prefix = uniqueName("dsync_tf");
    const streamName = prefix.toUpperCase();
    const nc = await natsConnect({ servers: NATS_URL.replace(/^nats:\/\//, "") });
    const jsm = await nc.jetstreamManager();
    await jsm.streams.add({ name: streamName, subjects: [`${prefix}.>`] });
    try {
      const run = await syncTo({ connectorName: "Nats", config: { url: NATS_URL, subject_template: `${prefix}.rows.{{ id }}`, timeout: 5 }, stream: streamFor("messages") });
      expect(run).toMatchObject({ successfulRows: ROWS, failedRows: 0 });
      const bodies: string[] = [];
      for (let seq = 1; seq <= ROWS; seq++) bodies.push(new TextDecoder().decode((await jsm.streams.getMessage(streamName, { seq })).data));
      expectPayloads(bodies);
    } finally {
      await jsm.streams.delete(streamName).catch(() => undefined);
      await nc.close();
    }
  });

  for (const mode of ["stream", "hash"] as const) {
    it(`Redis ${mode === "stream" ? "stream entries (XADD)" : "hashes (HSET)"} hold each value's exact text; a NULL is an absent field`, async () => {
      const prefix = uniqueName("dsync_tf");
      const admin = createClient({ url: REDIS_URL });
      admin.on("error", () => undefined);
      await admin.connect();
      try {
        const key = mode === "stream" ? `${prefix}:rows` : `${prefix}:row:{{ id }}`;
        const run = await syncTo({ connectorName: "Redis", config: { url: REDIS_URL, mode, key_template: key, timeout: 5 }, stream: streamFor(mode === "stream" ? "stream_entries" : "hashes") });
        expect(run).toMatchObject({ successfulRows: ROWS, failedRows: 0 });
        const entries =
          mode === "stream"
            ? ((await admin.xRange(`${prefix}:rows`, "-", "+")) ?? []).map((e) => (e.message ?? {}) as Record<string, string>)
            : await Promise.all([1, 2, 3, 4].map(async (id) => (await admin.hGetAll(`${prefix}:row:${id}`)) as Record<string, string>));
        expect(entries.map((e) => e.id).sort()).toEqual(["1", "2", "3", "4"]);
        for (const entry of entries) expectRedisFields(Number(entry.id), entry);
      } finally {
        const keys = await admin.keys(`${prefix}*`);
        if (keys.length > 0) await admin.del(keys);
        await admin.close();
      }
    });
  }
});

/**
 * A Redis field is a string: a string value as it is, any other value as its exact JSON text
 * (digits, `true`, the document), and a NULL no field at all.
 */
function expectRedisFields(id: number, fields: Record<string, string>) {
  for (const [column, json] of Object.entries(PG_TYPES_AS_JSON[id])) {
    const expected = json === "null" ? undefined : json.startsWith('"') ? (JSON.parse(json) as string) : json;
    expect(fields[column], `entry ${id}, field "${column}"`).toBe(expected);
  }
}

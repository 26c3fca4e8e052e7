// MQTT destination against the real broker at MQTT_URL (default mqtt://127.0.0.1:1883, Mosquitto):
// check, discover, QoS 1 publishes received by a subscriber, retained messages, a record the broker
// refuses in its PUBACK failing alone, retryable connection failures, the net policy and secrets.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { connectAsync, type MqttClient } from "mqtt";
import type { Row, WriteRecord } from "../types";
import { closedPort, streamFor, uniqueName } from "@/tests/support/connectors";
import { maskSecrets } from "../registry";
import { mqttDestination } from "./destination";

const MQTT_URL = process.env.MQTT_URL ?? "mqtt://127.0.0.1:1883";
const prefix = uniqueName("dsync_test");
const stream = streamFor("messages");
const configs: Row[] = [];
let subscriber: MqttClient;
const received: { topic: string; body: unknown; retain: boolean; action?: unknown }[] = [];

function config(overrides: Row = {}): Row {
  const c = { url: MQTT_URL, topic_template: `${prefix}/customers/{{ id }}`, timeout: 5, ...overrides };
  configs.push(c);
  return c;
}

/** Waits until the subscriber has `count` messages (the test's own timeout bounds it). */
async function receivedAtLeast(count: number) {
  while (received.length < count) await new Promise((r) => setTimeout(r, 20));
  return received;
}

const records: WriteRecord[] = [
  { key: "1", action: "insert", payload: { id: 1, name: "Ada" }, idempotencyKey: "k-1" },
  { key: "2", action: "update", payload: { id: 2, name: "Linus" }, idempotencyKey: "k-2" },
];

beforeAll(async () => {
  subscriber = await connectAsync(MQTT_URL, { protocolVersion: 5 });
  subscriber.on("message", (topic, payload, packet) => {
    received.push({
      topic,
      body: payload.length > 0 ? JSON.parse(payload.toString()) : null,
      retain: packet.retain,
      action: packet.properties?.userProperties?.action,
    });
  });
  await subscriber.subscribeAsync(`${prefix}/#`, { qos: 1 });
});
afterAll(async () => {
  for (const c of configs) await mqttDestination.close?.(c);
  // Clears the retained message: an empty retained payload.
  await subscriber.publishAsync(`${prefix}/retained/7`, "", { qos: 1, retain: true });
  await subscriber.endAsync();
});
afterEach(() => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  received.length = 0;
});

describe("MQTT destination", () => {
  it("checks the broker", async () => {
    const ok = await mqttDestination.check(config());
    expect(ok).toMatchObject({ ok: true });
    expect(ok.details).toMatch(/CONNACK accepted/);
    const down = await mqttDestination.check(config({ url: `mqtt://127.0.0.1:${await closedPort()}` }));
    expect(down.ok).toBe(false);
    expect(down.details).toMatch(/ECONNREFUSED/);
  });

  it("obeys the outbound network policy", async () => {
    process.env.OUTBOUND_ALLOW_PRIVATE = "";
    const blocked = await mqttDestination.check(config({ url: "mqtt://localhost:1883" }));
    expect(blocked.ok).toBe(false);
    expect(blocked.details).toMatch(/private, loopback or link-local/);
    const [outcome] = await mqttDestination.write(
      config({ url: "mqtt://127.0.0.1:1883" }),
      records.slice(0, 1),
      { stream, batch: true },
    );
    expect(outcome.ok).toBe(false);
    expect(outcome.error).toMatch(/not allowed/);
  });

  it("discovers one schemaless stream", async () => {
    const catalog = await mqttDestination.discover(config());
    expect(catalog.schema_mode).toBe("schemaless");
    expect(catalog.streams.map((s) => s.name)).toEqual(["messages"]);
  });

  it("publishes QoS 1 JSON messages to templated topics, acknowledged by PUBACK", async () => {
    const outcomes = await mqttDestination.write(config(), records, { stream, batch: true });
    expect(outcomes.map((o) => o.ok)).toEqual([true, true]);
    expect(outcomes[0].log?.response.line).toMatch(/^PUBACK \(reason code 0\)$/);
    const got = await receivedAtLeast(2);
    expect(got.map((m) => [m.topic, m.body, m.action]).sort()).toEqual([
      [`${prefix}/customers/1`, records[0].payload, "insert"],
      [`${prefix}/customers/2`, records[1].payload, "update"],
    ]);
  });

  it("retains messages when asked to", async () => {
    await mqttDestination.write(
      config({ topic_template: `${prefix}/retained/{{ id }}`, retain: true }),
      [{ key: "7", action: "insert", payload: { id: 7 } }],
      { stream, batch: true },
    );
    const late = await connectAsync(MQTT_URL, { protocolVersion: 5 });
    try {
      const retained = new Promise<{ topic: string; retain: boolean }>((resolve) =>
        late.on("message", (topic, _p, packet) => resolve({ topic, retain: packet.retain })),
      );
      await late.subscribeAsync(`${prefix}/retained/#`, { qos: 1 });
      expect(await retained).toEqual({ topic: `${prefix}/retained/7`, retain: true });
    } finally {
      await late.endAsync();
    }
  });

  it("fails only the record the broker refuses in its PUBACK, and an invalid topic", async () => {
    // Mosquitto answers a client's publish to $SYS with reason code 0x87 (not authorized).
    const c = config({
      topic_template: `{% if id == 0 %}$SYS/${prefix}{% else %}${prefix}/customers/{{ id }}{% endif %}`,
    });
    const outcomes = await mqttDestination.write(
      c,
      [
        { key: "a", action: "insert", payload: { id: 0 } },
        { key: "b", action: "insert", payload: { id: 3 } },
        { key: "c", action: "insert", payload: { id: "+" } },
      ],
      { stream, batch: true },
    );
    const byKey = Object.fromEntries(outcomes.map((o) => [o.key, o]));
    expect(byKey.a).toMatchObject({ ok: false, retryable: false });
    expect(byKey.a.error).toMatch(/Not authorized \(reason code 0x87\)/);
    expect(byKey.b.ok).toBe(true);
    expect(byKey.c.error).toMatch(/no wildcards/);
    expect((await receivedAtLeast(1)).map((m) => m.topic)).toEqual([`${prefix}/customers/3`]);
  });

  it("reports an unreachable broker as retryable", async () => {
    const outcomes = await mqttDestination.write(
      config({ url: `mqtt://127.0.0.1:${await closedPort()}` }),
      records,
      { stream, batch: true },
    );
    expect(outcomes.map((o) => [o.ok, o.retryable])).toEqual([
      [false, true],
      [false, true],
    ]);
  });

  it("masks the password", () => {
    expect(
      maskSecrets(config({ username: "u", password: "mq-secret" }), mqttDestination.definition),
    ).toMatchObject({ username: "u", password: "*************" });
  });
});

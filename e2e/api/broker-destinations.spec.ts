// Event-stream destinations over the REST API, end to end: for each of Redis, RabbitMQ, NATS
// JetStream and MQTT, a PostgreSQL source and model, the broker destination (its password masked in
// the answer), discovery, a sync, a manual run, and the messages read back from the real broker
// (REDIS_URL, AMQP_URL, NATS_URL, MQTT_URL; loopback defaults).
import { expect, test } from "@playwright/test";
import { createClient } from "@redis/client";
import { connect as amqpConnect } from "amqplib";
import { connect as natsConnect } from "nats";
import { connectAsync as mqttConnect, type MqttClient } from "mqtt";
import { fieldErrors } from "../support/api";
import { trigger, waitForRun } from "../support/run-scenarios";
import {
  dataWorkspace,
  ensureTestDatabase,
  MASK,
  pgConfiguration,
  sql,
  unique,
  type DataWorkspace,
} from "../support/data";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const AMQP_URL = new URL(process.env.AMQP_URL ?? "amqp://guest:guest@127.0.0.1:5672");
const NATS_URL = process.env.NATS_URL ?? "nats://127.0.0.1:4222";
const MQTT_URL = process.env.MQTT_URL ?? "mqtt://127.0.0.1:1883";

const ROWS = 5;
const prefix = unique("e2e_brokers");
const table = prefix;
const expected = Array.from({ length: ROWS }, (_, i) => ({ id: i + 1, email: `u${i + 1}@example.com` }));

/** One broker: its destination's configuration, what to prepare on it, and the messages a run left there. */
interface Broker {
  connector: string;
  stream: string;
  configuration: Record<string, unknown>;
  /** A configuration field the API must answer masked. */
  secret?: string;
  setUp(): Promise<void>;
  /** The records the broker holds, as {id, email}, sorted by id. */
  read(): Promise<Record<string, unknown>[]>;
  tearDown(): Promise<void>;
}

const amqpUrlWithoutPassword = () => {
  const url = new URL(AMQP_URL);
  url.username = "";
  url.password = "";
  return url.toString().replace(/\/$/, "");
};

const byId = (rows: Record<string, unknown>[]) => rows.sort((a, b) => Number(a.id) - Number(b.id));

function redisBroker(): Broker {
  const client = createClient({ url: REDIS_URL });
  const key = `${prefix}:users`;
  return {
    connector: "Redis",
    stream: "stream_entries",
    configuration: { url: REDIS_URL, mode: "stream", key_template: key },
    setUp: async () => {
      await client.connect();
    },
    read: async () =>
      byId(
        ((await client.xRange(key, "-", "+")) ?? []).map((e) => ({
          id: Number(e.message.id),
          email: e.message.email,
        })),
      ),
    tearDown: async () => {
      await client.del(key);
      await client.close();
    },
  };
}

function rabbitBroker(): Broker {
  const queue = `${prefix}_users`;
  let close = async () => undefined as void;
  let get: () => Promise<Record<string, unknown>[]> = async () => [];
  return {
    connector: "RabbitMQ",
    stream: "messages",
    configuration: {
      url: amqpUrlWithoutPassword(),
      username: decodeURIComponent(AMQP_URL.username || "guest"),
      password: decodeURIComponent(AMQP_URL.password || "guest"),
      exchange_template: "",
      routing_key_template: queue,
    },
    secret: "password",
    setUp: async () => {
      const model = await amqpConnect(AMQP_URL.toString());
      const channel = await model.createChannel();
      await channel.assertQueue(queue, { durable: false });
      get = async () => {
        const out: Record<string, unknown>[] = [];
        for (
          let m = await channel.get(queue, { noAck: true });
          m;
          m = await channel.get(queue, { noAck: true })
        )
          out.push(JSON.parse(m.content.toString()));
        return out;
      };
      close = async () => {
        await channel.deleteQueue(queue);
        await model.close();
      };
    },
    read: async () => byId(await get()),
    tearDown: () => close(),
  };
}

function natsBroker(): Broker {
  const name = prefix.toUpperCase();
  let close = async () => undefined as void;
  let read: () => Promise<Record<string, unknown>[]> = async () => [];
  return {
    connector: "Nats",
    stream: "messages",
    configuration: { url: NATS_URL, subject_template: `${prefix}.users.{{ id }}` },
    setUp: async () => {
      const nc = await natsConnect({ servers: NATS_URL.replace(/^nats:\/\//, "") });
      const jsm = await nc.jetstreamManager();
      await jsm.streams.add({ name, subjects: [`${prefix}.users.>`] });
      read = async () => {
        const { state } = await jsm.streams.info(name);
        const out: Record<string, unknown>[] = [];
        for (let seq = state.first_seq; state.messages > 0 && seq <= state.last_seq; seq++)
          out.push((await jsm.streams.getMessage(name, { seq })).json());
        return byId(out);
      };
      close = async () => {
        await jsm.streams.delete(name);
        await nc.close();
      };
    },
    read: () => read(),
    tearDown: () => close(),
  };
}

function mqttBroker(): Broker {
  let subscriber: MqttClient | undefined;
  const received: Record<string, unknown>[] = [];
  return {
    connector: "Mqtt",
    stream: "messages",
    configuration: { url: MQTT_URL, topic_template: `${prefix}/users/{{ id }}` },
    setUp: async () => {
      subscriber = await mqttConnect(MQTT_URL, { protocolVersion: 5 });
      subscriber.on("message", (_topic, payload) => received.push(JSON.parse(payload.toString())));
      await subscriber.subscribeAsync(`${prefix}/users/#`, { qos: 1 });
    },
    // QoS 1 to a QoS 1 subscription: every PUBACKed message reaches the subscriber; wait for them.
    read: async () => {
      await expect.poll(() => received.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(ROWS);
      return byId([...received]);
    },
    tearDown: async () => {
      await subscriber?.endAsync();
    },
  };
}

let ws: DataWorkspace;
let sourceId: number;
let modelId: number;

async function post(path: string, data: unknown, status = 201) {
  const res = await ws.admin.post(path, data);
  expect(res.status(), await res.text()).toBe(status);
  return res.json();
}

test.beforeAll(async () => {
  await ensureTestDatabase();
  await sql(`CREATE TABLE ${table} (id integer PRIMARY KEY, email text)`);
  await sql(`INSERT INTO ${table} SELECT g, 'u' || g || '@example.com' FROM generate_series(1, ${ROWS}) g`);
  ws = await dataWorkspace("brokers");
  const source = {
    name: unique("source"),
    connector_type: "source",
    connector_name: "Postgresql",
    configuration: pgConfiguration(),
  };
  sourceId = Number((await post("/api/v1/connectors", { connector: source })).data.id);
  const model = {
    name: unique("m"),
    query: `SELECT id, email FROM ${table}`,
    query_type: "raw_sql",
    primary_key: "id",
    connector_id: sourceId,
  };
  modelId = Number((await post("/api/v1/models", { model })).data.id);
});

test.afterAll(async () => {
  await ws?.dispose();
  await sql(`DROP TABLE IF EXISTS ${table}`);
});

for (const make of [redisBroker, rabbitBroker, natsBroker, mqttBroker]) {
  const broker = make();
  test(`a sync delivers every row of the model to ${broker.connector}, acknowledged by the broker`, async () => {
    await broker.setUp();
    try {
      const created = await post("/api/v1/connectors", {
        connector: {
          name: unique(broker.connector),
          connector_type: "destination",
          connector_name: broker.connector,
          configuration: broker.configuration,
        },
      });
      const destinationId = Number(created.data.id);
      if (broker.secret) {
        expect(created.data.attributes.configuration[broker.secret]).toBe(MASK);
      }

      const check = await ws.admin.post("/api/v1/connector_definitions/check_connection", {
        type: "destination",
        name: broker.connector,
        connection_spec: broker.configuration,
      });
      expect(check.status(), await check.text()).toBe(200);
      expect((await check.json()).connection_status.status).toBe("succeeded");

      const discovered = await ws.admin.get(`/api/v1/connectors/${destinationId}/discover?refresh=true`);
      expect(discovered.status(), await discovered.text()).toBe(200);
      const catalog = (await discovered.json()).data.attributes.catalog;
      expect(catalog.streams.map((s: { name: string }) => s.name)).toEqual([broker.stream]);

      const sync = await post(
        "/api/v1/syncs",
        {
          sync: {
            name: unique("sync"),
            source_id: sourceId,
            destination_id: destinationId,
            model_id: modelId,
            schedule_type: "manual",
            sync_mode: "full_refresh",
            stream_name: broker.stream,
            configuration: [
              { from: "id", to: "id", mapping_type: "standard" },
              { from: "email", to: "email", mapping_type: "standard" },
            ],
          },
        },
        200,
      );
      const syncId = Number(sync.id);
      const run = await waitForRun(ws.admin, syncId, await trigger(ws.admin, syncId));
      expect(run).toMatchObject({ status: "success", successful_rows: ROWS, failed_rows: 0 });
      expect(await broker.read()).toEqual(expected);
    } finally {
      await broker.tearDown();
    }
  });
}

test("bad broker settings are a 422 naming the field, and a password never rides in the URL", async () => {
  const create = (connector_name: string, configuration: Record<string, unknown>) =>
    ws.admin.post("/api/v1/connectors", {
      connector: { name: unique("bad"), connector_type: "destination", connector_name, configuration },
    });
  const cases: [string, Record<string, unknown>, string][] = [
    [
      "Redis",
      { url: "redis://user:hunter2@127.0.0.1:6379", mode: "stream", key_template: "k" },
      "connector.configuration.url",
    ],
    [
      "Redis",
      { url: "redis://127.0.0.1:6379", mode: "list", key_template: "k" },
      "connector.configuration.mode",
    ],
    ["RabbitMQ", { url: "http://127.0.0.1:5672", routing_key_template: "q" }, "connector.configuration.url"],
    ["RabbitMQ", { url: "amqp://127.0.0.1:5672" }, "connector.configuration.routing_key_template"],
    [
      "Nats",
      { url: "nats://127.0.0.1:4222", subject_template: "s", timeout: 0 },
      "connector.configuration.timeout",
    ],
    [
      "Mqtt",
      { url: "mqtt://127.0.0.1:1883", topic_template: "t", retain: "yes" },
      "connector.configuration.retain",
    ],
  ];
  for (const [name, configuration, path] of cases) {
    const res = await create(name, configuration);
    expect(res.status(), `${name} ${JSON.stringify(configuration)}`).toBe(422);
    const body = await res.json();
    expect(fieldErrors(body).map((e) => e.path)).toContain(path);
    expect(JSON.stringify(body)).not.toContain("hunter2");
  }
});

test("a broker destination stays in its workspace: another workspace gets 404, a Viewer cannot create one", async () => {
  const configuration = {
    url: amqpUrlWithoutPassword(),
    username: "guest",
    password: "guest",
    routing_key_template: "q",
  };
  const created = await post("/api/v1/connectors", {
    connector: {
      name: unique("rabbit"),
      connector_type: "destination",
      connector_name: "RabbitMQ",
      configuration,
    },
  });
  const id = Number(created.data.id);
  const other = await dataWorkspace("brokers-other");
  try {
    expect((await other.admin.get(`/api/v1/connectors/${id}`)).status()).toBe(404);
    expect((await other.admin.get(`/api/v1/connectors/${id}/discover?refresh=true`)).status()).toBe(404);
    expect((await other.admin.post(`/api/v1/connectors/${id}/check`, {})).status()).toBe(404);
  } finally {
    await other.dispose();
  }
  const viewer = await ws.viewer.post("/api/v1/connectors", {
    connector: {
      name: unique("rabbit"),
      connector_type: "destination",
      connector_name: "RabbitMQ",
      configuration,
    },
  });
  expect(viewer.status()).toBe(403);
  // What a Viewer may read shows the password masked.
  const shown = await ws.viewer.get(`/api/v1/connectors/${id}`);
  expect(shown.status()).toBe(200);
  expect((await shown.json()).data.attributes.configuration.password).toBe(MASK);
});

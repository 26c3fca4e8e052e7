// RabbitMQ destination against the real broker at AMQP_URL (default amqp://guest:guest@127.0.0.1:5672):
// check, discover, confirmed publishes read back from a queue, unroutable and missing-exchange
// records failing alone, retryable connection failures, the net policy and masked secrets.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { connect, type Channel, type ChannelModel, type GetMessage } from "amqplib";
import type { Row, WriteRecord } from "../types";
import { closedPort, streamFor, uniqueName } from "@/tests/support/connectors";
import { maskSecrets } from "../registry";
import { rabbitmqDestination } from "./destination";

const AMQP_URL = new URL(process.env.AMQP_URL ?? "amqp://guest:guest@127.0.0.1:5672");
const exchange = uniqueName("dsync_test_x");
const queue = uniqueName("dsync_test_q");
const stream = streamFor("messages");
const configs: Row[] = [];
let admin: ChannelModel;
let channel: Channel;

/** The broker's URL without its password, which goes in its own field. */
function config(overrides: Row = {}): Row {
  const url = new URL(AMQP_URL);
  url.username = "";
  url.password = "";
  const c: Row = {
    url: url.toString().replace(/\/$/, ""),
    username: decodeURIComponent(AMQP_URL.username || "guest"),
    password: decodeURIComponent(AMQP_URL.password || "guest"),
    exchange_template: exchange,
    routing_key_template: "customers.{{ status }}",
    timeout: 5,
    ...overrides,
  };
  configs.push(c);
  return c;
}

async function drain(): Promise<GetMessage[]> {
  const out: GetMessage[] = [];
  for (let m = await channel.get(queue, { noAck: true }); m; m = await channel.get(queue, { noAck: true }))
    out.push(m);
  return out;
}

const records: WriteRecord[] = [
  { key: "1", action: "insert", payload: { id: 1, name: "Ada", status: "active" }, idempotencyKey: "k-1" },
  { key: "2", action: "update", payload: { id: 2, name: "Linus", status: "active" }, idempotencyKey: "k-2" },
];

beforeAll(async () => {
  admin = await connect(AMQP_URL.toString());
  channel = await admin.createChannel();
  await channel.assertExchange(exchange, "topic", { durable: false, autoDelete: false });
  await channel.assertQueue(queue, { durable: false });
  await channel.bindQueue(queue, exchange, "customers.*");
});
afterAll(async () => {
  for (const c of configs) await rabbitmqDestination.close?.(c);
  await channel.deleteQueue(queue);
  await channel.deleteExchange(exchange);
  await admin.close();
});
afterEach(() => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
});

describe("RabbitMQ destination", () => {
  it("checks the broker, the credentials and a static exchange", async () => {
    const ok = await rabbitmqDestination.check(config());
    expect(ok.ok).toBe(true);
    expect(ok.details).toMatch(new RegExp(`^Connected to RabbitMQ .*exchange "${exchange}" exists`));
    const badPassword = await rabbitmqDestination.check(config({ password: "wrong-password-abc" }));
    expect(badPassword.ok).toBe(false);
    expect(badPassword.details).toMatch(/ACCESS_REFUSED|refused/i);
    expect(badPassword.details).not.toContain("wrong-password-abc");
    const missing = await rabbitmqDestination.check(
      config({ exchange_template: uniqueName("dsync_missing") }),
    );
    expect(missing.ok).toBe(false);
    expect(missing.details).toMatch(/does not exist/);
    const down = await rabbitmqDestination.check(config({ url: `amqp://127.0.0.1:${await closedPort()}` }));
    expect(down.details).toMatch(/ECONNREFUSED/);
  });

  it("obeys the outbound network policy", async () => {
    process.env.OUTBOUND_ALLOW_PRIVATE = "";
    const blocked = await rabbitmqDestination.check(config({ url: "amqp://localhost:5672" }));
    expect(blocked.ok).toBe(false);
    expect(blocked.details).toMatch(/not allowed/);
    const [outcome] = await rabbitmqDestination.write(
      config({ url: "amqp://127.0.0.1:5672" }),
      records.slice(0, 1),
      { stream, batch: true },
    );
    expect(outcome.ok).toBe(false);
    expect(outcome.error).toMatch(/private, loopback or link-local/);
  });

  it("discovers one schemaless stream", async () => {
    const catalog = await rabbitmqDestination.discover(config());
    expect(catalog).toMatchObject({ schema_mode: "schemaless", request_rate_limit: 0 });
    expect(catalog.streams.map((s) => [s.name, s.action, s.batch_support])).toEqual([
      ["messages", "create", true],
    ]);
  });

  it("publishes confirmed persistent JSON messages with templated routing keys", async () => {
    const outcomes = await rabbitmqDestination.write(config(), records, { stream, batch: true });
    expect(outcomes.map((o) => [o.key, o.ok])).toEqual([
      ["1", true],
      ["2", true],
    ]);
    expect(outcomes[0].log?.response.line).toBe("confirmed (basic.ack)");
    const messages = await drain();
    expect(messages.map((m) => [m.fields.routingKey, JSON.parse(m.content.toString())])).toEqual([
      ["customers.active", records[0].payload],
      ["customers.active", records[1].payload],
    ]);
    expect(messages[1].properties).toMatchObject({
      deliveryMode: 2,
      contentType: "application/json",
      messageId: "k-2",
      type: "update",
    });
  });

  it("fails an unroutable message and a missing exchange alone", async () => {
    const c = config({
      exchange_template: `{% if name == "Grace" %}${uniqueName("dsync_none")}{% else %}${exchange}{% endif %}`,
    });
    const outcomes = await rabbitmqDestination.write(
      c,
      [
        { key: "a", action: "insert", payload: { name: "Ada", status: "active" } },
        { key: "b", action: "insert", payload: { name: "Bob", status: "nowhere.deep" } },
        { key: "g", action: "insert", payload: { name: "Grace", status: "active" } },
        { key: "h", action: "insert", payload: { name: "Hedy", status: "active" } },
      ],
      { stream, batch: true },
    );
    const byKey = Object.fromEntries(outcomes.map((o) => [o.key, o]));
    expect([byKey.a.ok, byKey.h.ok]).toEqual([true, true]);
    expect(byKey.b).toMatchObject({ ok: false, retryable: false });
    expect(byKey.b.error).toMatch(/unroutable \(312 NO_ROUTE\)/);
    expect(byKey.g).toMatchObject({ ok: false, retryable: false });
    expect(byKey.g.error).toMatch(/does not exist/);
    expect((await drain()).map((m) => JSON.parse(m.content.toString()).name).sort()).toEqual(["Ada", "Hedy"]);
  });

  it("fails a record the broker nacks (a full queue that rejects publishes), retryable", async () => {
    const full = uniqueName("dsync_test_full");
    await channel.assertQueue(full, {
      durable: false,
      arguments: { "x-max-length": 1, "x-overflow": "reject-publish" },
    });
    try {
      const outcomes = await rabbitmqDestination.write(
        config({ exchange_template: "", routing_key_template: full }),
        records,
        { stream, batch: true },
      );
      expect(outcomes.map((o) => [o.key, o.ok, o.retryable])).toEqual([
        ["1", true, undefined],
        ["2", false, true],
      ]);
      expect(outcomes[1].error).toMatch(/basic\.nack/);
      expect((await channel.checkQueue(full)).messageCount).toBe(1);
    } finally {
      await channel.deleteQueue(full);
    }
  });

  it("reports an unreachable broker as retryable", async () => {
    const outcomes = await rabbitmqDestination.write(
      config({ url: `amqp://127.0.0.1:${await closedPort()}` }),
      records,
      { stream, batch: true },
    );
    expect(outcomes.map((o) => [o.ok, o.retryable, o.status])).toEqual([
      [false, true, 0],
      [false, true, 0],
    ]);
  });

  it("masks the password", () => {
    const masked = maskSecrets(config({ password: "s3cret-pass" }), rabbitmqDestination.definition);
    expect(masked.password).toBe("*************");
    expect(JSON.stringify(masked)).not.toContain("s3cret-pass");
  });
});

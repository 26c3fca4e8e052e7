// NATS JetStream destination against the real server at NATS_URL (default nats://127.0.0.1:4222):
// check, discover, acknowledged publishes read back from a stream, de-duplication of a retried
// record by its Nats-Msg-Id, a subject no stream captures failing alone, retryable connection
// failures, the net policy and masked secrets.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { connect, type JetStreamManager, type NatsConnection } from "nats";
import type { Row, WriteRecord } from "../types";
import { closedPort, streamFor, uniqueName } from "@/tests/support/connectors";
import { maskSecrets } from "../registry";
import { natsDestination } from "./destination";

const NATS_URL = process.env.NATS_URL ?? "nats://127.0.0.1:4222";
const prefix = uniqueName("dsync_test");
const streamName = prefix.toUpperCase();
const stream = streamFor("messages");
const configs: Row[] = [];
let nc: NatsConnection;
let jsm: JetStreamManager;

function config(overrides: Row = {}): Row {
  const c = { url: NATS_URL, subject_template: `${prefix}.customers.{{ status }}`, timeout: 5, ...overrides };
  configs.push(c);
  return c;
}

async function stored(): Promise<{ subject: string; data: unknown; msgId?: string; action?: string }[]> {
  const info = await jsm.streams.info(streamName);
  const out = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
    const m = await jsm.streams.getMessage(streamName, { seq });
    out.push({
      subject: m.subject,
      data: m.json(),
      msgId: m.header.get("Nats-Msg-Id"),
      action: m.header.get("Datasync-Action"),
    });
  }
  return out;
}

const records: WriteRecord[] = [
  {
    key: "1",
    action: "insert",
    payload: { id: 1, name: "Ada", status: "active" },
    idempotencyKey: `${prefix}-k1`,
  },
  {
    key: "2",
    action: "update",
    payload: { id: 2, name: "Linus", status: "paused" },
    idempotencyKey: `${prefix}-k2`,
  },
];

beforeAll(async () => {
  nc = await connect({ servers: NATS_URL.replace(/^nats:\/\//, "") });
  jsm = await nc.jetstreamManager();
  await jsm.streams.add({
    name: streamName,
    subjects: [`${prefix}.customers.>`],
    duplicate_window: 60_000_000_000,
  });
});
afterAll(async () => {
  for (const c of configs) await natsDestination.close?.(c);
  await jsm.streams.delete(streamName).catch(() => undefined);
  await nc.close();
});
afterEach(() => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
});

describe("NATS JetStream destination", () => {
  it("checks the server, JetStream and a fixed subject", async () => {
    const ok = await natsDestination.check(config());
    expect(ok.ok).toBe(true);
    expect(ok.details).toMatch(/^Connected to NATS \d+\.\d+.*JetStream has \d+ stream/);
    const fixed = await natsDestination.check(config({ subject_template: `${prefix}.customers.x` }));
    expect(fixed.ok).toBe(true);
    const uncaptured = await natsDestination.check(config({ subject_template: `${prefix}.nowhere` }));
    expect(uncaptured).toMatchObject({ ok: false });
    expect(uncaptured.details).toMatch(/no JetStream stream captures/);
    const down = await natsDestination.check(config({ url: `nats://127.0.0.1:${await closedPort()}` }));
    expect(down.ok).toBe(false);
  });

  it("obeys the outbound network policy", async () => {
    process.env.OUTBOUND_ALLOW_PRIVATE = "";
    const blocked = await natsDestination.check(config({ url: "nats://localhost:4222" }));
    expect(blocked.ok).toBe(false);
    expect(blocked.details).toMatch(/private, loopback or link-local/);
    process.env.OUTBOUND_ALLOW_PRIVATE = "*";
    const [outcome] = await natsDestination.write(
      config({ url: "nats://169.254.169.254:4222" }),
      records.slice(0, 1),
      { stream, batch: true },
    );
    expect(outcome).toMatchObject({ ok: false, retryable: false });
    expect(outcome.error).toMatch(/cloud metadata/);
  });

  it("discovers one schemaless stream", async () => {
    const catalog = await natsDestination.discover(config({ batch_size: 50 }));
    expect(catalog.schema_mode).toBe("schemaless");
    expect(catalog.streams.map((s) => [s.name, s.batch_size])).toEqual([["messages", 50]]);
  });

  it("publishes acknowledged messages and stores a retried record once", async () => {
    const c = config();
    const first = await natsDestination.write(c, records, { stream, batch: true });
    expect(first.map((o) => o.ok)).toEqual([true, true]);
    expect(first[0].log?.response.line).toMatch(
      new RegExp(`^stored in stream ${streamName} at sequence \\d+$`),
    );
    // The engine sends the same records again (a retry, a resumed run): JetStream drops the repeats.
    const again = await natsDestination.write(c, records, { stream, batch: true });
    expect(again.map((o) => o.ok)).toEqual([true, true]);
    expect(again[0].log?.response.line).toMatch(/already stored/);
    expect(await stored()).toEqual([
      {
        subject: `${prefix}.customers.active`,
        data: records[0].payload,
        msgId: `${prefix}-k1`,
        action: "insert",
      },
      {
        subject: `${prefix}.customers.paused`,
        data: records[1].payload,
        msgId: `${prefix}-k2`,
        action: "update",
      },
    ]);
  });

  it("fails a subject no stream captures, and an invalid subject, alone", async () => {
    const before = (await jsm.streams.info(streamName)).state.messages;
    const c = config({
      subject_template: `{% if status == "lost" %}${prefix}.elsewhere{% else %}${prefix}.customers.{{ status }}{% endif %}`,
    });
    const outcomes = await natsDestination.write(
      c,
      [
        { key: "a", action: "insert", payload: { status: "lost" }, idempotencyKey: `${prefix}-a` },
        { key: "b", action: "insert", payload: { status: "new" }, idempotencyKey: `${prefix}-b` },
        { key: "c", action: "insert", payload: { status: "*" }, idempotencyKey: `${prefix}-c` },
      ],
      { stream, batch: true },
    );
    const byKey = Object.fromEntries(outcomes.map((o) => [o.key, o]));
    expect(byKey.a).toMatchObject({ ok: false, retryable: false });
    expect(byKey.a.error).toBe(
      `No JetStream stream captures the subject "${prefix}.elsewhere" (no responders).`,
    );
    expect(byKey.b.ok).toBe(true);
    expect(byKey.c.error).toMatch(/no wildcards/);
    expect((await jsm.streams.info(streamName)).state.messages).toBe(before + 1);
  });

  it("reports an unreachable server as retryable", async () => {
    const outcomes = await natsDestination.write(
      config({ url: `nats://127.0.0.1:${await closedPort()}` }),
      records,
      { stream, batch: true },
    );
    expect(outcomes.map((o) => [o.ok, o.retryable])).toEqual([
      [false, true],
      [false, true],
    ]);
  });

  it("masks the password and the token", () => {
    const masked = maskSecrets(
      config({ password: "pw-secret-1", token: "tok-secret-2" }),
      natsDestination.definition,
    );
    expect([masked.password, masked.token]).toEqual(["*************", "*************"]);
  });
});

// A connector that never answers must not hold a worker slot. For each kind of connector (HTTP, the
// PostgreSQL destination, Redis, RabbitMQ, NATS and MQTT speaking to a TCP server that accepts and
// never answers, and a PostgreSQL source whose read never returns), with ONE worker slot shared by
// every workspace: a cancel frees the slot at once and another workspace's queued run completes; a
// call past ENGINE_CONNECTOR_CALL_TIMEOUT_SECONDS fails the run with a sentence naming the connector
// and the call, and the next run proceeds; a graceful shutdown finishes and hands the run back to
// the queue. The connectors' own timeouts are set to their maximum (120 s to 24 h), so without the
// engine's deadline each of these would hold the slot for minutes (or, for MQTT, for ever). Then the
// real Mosquitto at MQTT_URL: a topic rendered from a value with a line feed used to hang the run.
import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import { createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Catalog, Row } from "@/lib/connectors/types";
import { cancelRun, startEngine, stopEngine, triggerSync } from "@/lib/engine";
import { CANCELED_ERROR } from "@/lib/engine/run-store";
import { catalogOf, createFixture, createPeople, reloadRun, runRecords, tableStream, waitFor, pgConnectorConfig } from "@/lib/engine/test-support";
import type { SyncRun } from "@/lib/generated/prisma/client";
import { streamFor, uniqueName } from "@/tests/support/connectors";
import { createScratchDatabase, useTestDatabase } from "@/tests/support/db";

useTestDatabase();

// One attempt per write: the faults here are silences, not refusals worth a retry.
process.env.ENGINE_WRITE_ATTEMPTS = "1";
process.env.ENGINE_STATUS_POLL_MS = "200";
// A long deadline unless a test shortens it: what ends a run is then the cancel or the shutdown.
const LONG_DEADLINE = "600";
process.env.ENGINE_CONNECTOR_CALL_TIMEOUT_SECONDS = LONG_DEADLINE;

const ROWS = 5;
let source: { url: string; drop(): Promise<void> };

/** A TCP server that accepts connections, reads what it is sent and never answers. */
function silentServer() {
  const sockets = new Set<Socket>();
  // Connections and chunks received: NATS waits for the server to speak first, undici may open a
  // connection before it has anything to send on it.
  let activity = 0;
  const server: Server = createServer((socket) => {
    activity++;
    sockets.add(socket);
    socket.on("data", () => void activity++);
    socket.on("error", () => undefined);
    socket.on("close", () => sockets.delete(socket));
  });
  return {
    get activity() {
      return activity;
    },
    listen: () => new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve)),
    port: () => (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** An HTTP receiver that answers 200 to everything: the other workspace's destination. */
function receiver() {
  let received = 0;
  const server: HttpServer = createHttpServer((req, res) => {
    req.resume();
    req.on("end", () => {
      received++;
      res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
    });
  });
  return {
    get received() {
      return received;
    },
    listen: () => new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve)),
    url: () => `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const brokerCatalog = (): Catalog => catalogOf(streamFor("messages", { batch_size: 100 }), { request_rate_concurrency: 1 });
const webhookCatalog = (url: string): Catalog =>
  catalogOf(tableStream("webhook", { url, batch_support: false, batch_size: 0, primary_key: undefined }), { request_rate_concurrency: 1 });

interface Kind {
  name: string;
  /** The title the failure sentence names, and the call. */
  says: RegExp;
  /** The sync of workspace A, pointed at the silent server on `port`. */
  fixture(port: number): Parameters<typeof createFixture>[0];
}

const silentPg = (port: number, extra: Row = {}) =>
  pgConnectorConfig(`postgres://postgres:secret@127.0.0.1:${port}/silent`, { connect_timeout: 300, query_timeout: 86400, ...extra });

const kinds: Kind[] = [
  {
    name: "an HTTP destination whose server never responds",
    says: /^The HTTP webhook destination did not answer a write within 2 s/,
    fixture: (port) => {
      const url = `http://127.0.0.1:${port}/hook`;
      return { sourceUrl: source.url, destination: { connectorName: "Http", config: { destination_url: url, method: "POST", timeout: 300 }, catalog: webhookCatalog(url) } };
    },
  },
  {
    name: "a PostgreSQL destination whose server never answers",
    says: /^The PostgreSQL destination did not answer a (table lookup|write|lookup of existing keys) within 2 s/,
    fixture: (port) => ({
      sourceUrl: source.url,
      destination: { connectorName: "Postgresql", config: silentPg(port), catalog: catalogOf(tableStream("people"), { request_rate_concurrency: 1 }) },
    }),
  },
  ...(
    [
      ["Redis", "redis", { mode: "stream", key_template: "orders" }],
      ["RabbitMQ", "amqp", { routing_key_template: "orders" }],
      ["NATS JetStream", "nats", { subject_template: "orders" }],
      ["MQTT", "mqtt", { topic_template: "orders" }],
    ] as const
  ).map(
    ([title, scheme, settings]): Kind => ({
      name: `a ${title} destination whose broker accepts the connection and never answers`,
      says: new RegExp(`^The ${title} destination did not answer a write within 2 s`),
      fixture: (port) => ({
        sourceUrl: source.url,
        destination: {
          connectorName: title === "NATS JetStream" ? "Nats" : title === "RabbitMQ" ? "Rabbitmq" : title,
          config: { url: `${scheme}://127.0.0.1:${port}`, timeout: 120, ...settings },
          catalog: brokerCatalog(),
        },
      }),
    }),
  ),
];

const ended = (run: SyncRun) => ["success", "failed", "canceled"].includes(run.status);
const finished = (runId: number) => waitFor(async () => ((r) => (ended(r) ? r : undefined))(await reloadRun(runId)), 45_000, `run ${runId} to finish`);

beforeAll(async () => {
  source = await createScratchDatabase("ds_ops_deadlines");
  await createPeople(source.url, ROWS);
  // One worker slot shared by every workspace.
  await startEngine({ worker: true, scheduler: false, concurrency: 1 });
});

afterAll(async () => {
  await stopEngine();
  await source?.drop();
});

/** Workspace B: the same rows to a destination that answers. */
async function otherWorkspace(dest: ReturnType<typeof receiver>) {
  return createFixture({ sourceUrl: source.url, destination: { connectorName: "Http", config: { destination_url: dest.url(), method: "POST" }, catalog: webhookCatalog(dest.url()) } });
}

describe.each([
  ...kinds,
  {
    name: "a PostgreSQL source whose read never returns",
    says: /^The PostgreSQL source did not answer a (read|column lookup) within 2 s/,
    fixture: (port: number) => ({
      sourceUrl: source.url,
      source: { connectorName: "Postgresql", config: silentPg(port) },
      destination: { connectorName: "Http", config: { destination_url: "http://127.0.0.1:9/never", method: "POST" }, catalog: webhookCatalog("http://127.0.0.1:9/never") },
    }),
  } satisfies Kind,
])("$name", (kind) => {
  const silent = silentServer();
  const other = receiver();
  beforeAll(async () => {
    await silent.listen();
    await other.listen();
  });
  afterAll(async () => {
    process.env.ENGINE_CONNECTOR_CALL_TIMEOUT_SECONDS = LONG_DEADLINE;
    await silent.close();
    await other.close();
  });

  /** A run of A that is inside its connector call (the silent server heard from it). */
  async function hungRun(syncOf: { workspaceId: number; syncId: number }) {
    const before = silent.activity;
    const run = await triggerSync(syncOf.workspaceId, syncOf.syncId);
    await waitFor(async () => (silent.activity > before ? true : undefined), 30_000, "the connector to reach the silent server");
    return run;
  }

  it("a cancel frees the only worker slot at once: another workspace's queued run completes", { timeout: 60_000 }, async () => {
    const a = await createFixture(kind.fixture(silent.port()));
    const b = await otherWorkspace(other);
    const runA = await hungRun(a);
    const runB = await triggerSync(b.workspaceId, b.syncId);
    await cancelRun(a.workspaceId, a.syncId, runA.id);

    const doneB = await finished(runB.id);
    expect(doneB).toMatchObject({ status: "success", successfulRows: ROWS, error: null });
    const doneA = await reloadRun(runA.id);
    expect(doneA).toMatchObject({ status: "failed", error: CANCELED_ERROR });
  });

  it("a call past ENGINE_CONNECTOR_CALL_TIMEOUT_SECONDS fails the run with a sentence, and the next run proceeds", { timeout: 60_000 }, async () => {
    process.env.ENGINE_CONNECTOR_CALL_TIMEOUT_SECONDS = "2";
    try {
      const a = await createFixture(kind.fixture(silent.port()));
      const b = await otherWorkspace(other);
      const runA = await hungRun(a);
      const runB = await triggerSync(b.workspaceId, b.syncId);

      const doneA = await finished(runA.id);
      expect(doneA.status).toBe("failed");
      expect(doneA.error).toMatch(kind.says);
      expect(doneA.error).toMatch(/the run stopped/);
      // Nothing was confirmed, so nothing is recorded as delivered: every row is sent by the next run.
      expect((await runRecords(runA.id)).filter((r) => r.status === "success")).toHaveLength(0);
      const doneB = await finished(runB.id);
      expect(doneB).toMatchObject({ status: "success", successfulRows: ROWS, error: null });
    } finally {
      process.env.ENGINE_CONNECTOR_CALL_TIMEOUT_SECONDS = LONG_DEADLINE;
    }
  });

  it("a graceful shutdown finishes and hands the run back to the queue", { timeout: 60_000 }, async () => {
    process.env.ENGINE_STOP_GRACE_SECONDS = "0";
    const a = await createFixture(kind.fixture(silent.port()));
    const runA = await hungRun(a);
    try {
      await stopEngine();
      const handedBack = await reloadRun(runA.id);
      expect(handedBack.status).toBe("queued");
    } finally {
      delete process.env.ENGINE_STOP_GRACE_SECONDS;
      await startEngine({ worker: true, scheduler: false, concurrency: 1 });
    }
    // Queued again, it would resume (and hang again) on the restarted worker: it is not wanted.
    await cancelRun(a.workspaceId, a.syncId, runA.id);
    await finished(runA.id);
  });
});

describe("the real Mosquitto: a topic rendered from a value holding a line feed", () => {
  const MQTT_URL = process.env.MQTT_URL ?? "mqtt://127.0.0.1:1883";
  const prefix = uniqueName("dsync_ops");

  it("fails only the records whose topic is invalid, with a sentence, and the run ends", { timeout: 60_000 }, async () => {
    const f = await createFixture({
      sourceUrl: source.url,
      // Even ids get a line feed in the value the topic is rendered from.
      query: "SELECT id, CASE WHEN id % 2 = 0 THEN 'line' || E'\\n' || 'feed' ELSE 'plain' END AS name, email, score, updated_at FROM people",
      destination: { connectorName: "Mqtt", config: { url: MQTT_URL, topic_template: `${prefix}/{{ name }}/{{ id }}`, timeout: 5 }, catalog: brokerCatalog() },
    });
    const run = await triggerSync(f.workspaceId, f.syncId);
    const done = await finished(run.id);
    expect(done).toMatchObject({ status: "success", successfulRows: Math.ceil(ROWS / 2), failedRows: Math.floor(ROWS / 2) });
    const failures = (await runRecords(run.id)).filter((r) => r.status === "failed");
    expect(failures).toHaveLength(Math.floor(ROWS / 2));
    for (const r of failures) {
      expect(r.error).toMatch(/^The topic ".*\\nfeed\/\d+" cannot be used: topics contain no control characters such as a line feed/);
    }
  });
});

// A keepalive that overtakes queued changes must not be acknowledged before those changes are
// recorded. pg-logical-replication, with flow control on, hands over the first change message of a
// read at once and queues the rest behind it, but emits a keepalive the moment it is parsed. When the
// first message ends a transaction with nothing for us (one replayed after a crash, recorded already),
// nothing looks pending while the next transaction still waits in the queue; acknowledging the
// keepalive's position then moved the slot past it, and a killed worker's successor skipped it (found
// by tests/ops/live-worker-kill.test.ts). A stand-in for the library's service replays that order
// exactly; the real PostgreSQL side is covered by lib/engine/live's tests.
import type { EventEmitter } from "node:events";
import { describe, expect, it, vi } from "vitest";

const fake = vi.hoisted(() => ({ services: [] as unknown[] }));

vi.mock("pg-logical-replication", async () => {
  // Imported here: the factory runs before the file's own imports.
  const { EventEmitter: Emitter } = await import("node:events");
  class LogicalReplicationService extends Emitter {
    readonly acknowledged: string[] = [];
    private queue: { lsn: string; data: unknown }[] = [];
    private processing = false;
    constructor() {
      super();
      fake.services.push(this);
    }
    /** What the library does on an XLogData message with flow control on: queue it, work the queue off. */
    queueData(lsn: string, data: unknown) {
      this.queue.push({ lsn, data });
      if (this.processing) return;
      this.processing = true;
      void (async () => {
        while (this.queue.length > 0) {
          const m = this.queue.shift()!;
          await Promise.all(this.listeners("data").map((l) => (l as (lsn: string, d: unknown) => unknown)(m.lsn, m.data)));
        }
        this.processing = false;
      })();
    }
    subscribe() {
      return new Promise(() => undefined);
    }
    async acknowledge(lsn: string) {
      this.acknowledged.push(lsn);
      return true;
    }
    async destroy() {
      this.removeAllListeners();
    }
  }
  class PgoutputPlugin {
    parse(): unknown {
      return {};
    }
  }
  return { LogicalReplicationService, PgoutputPlugin };
});

const { postgresqlLive } = await import("./live");

type Fake = EventEmitter & { acknowledged: string[]; queueData(lsn: string, data: unknown): void };

const CONFIG = { host: "127.0.0.1", port: 5432, database: "test", credentials: { username: "postgres" } };
const relation = { keyColumns: ["id"], columns: [{ name: "id", typeOid: 23 }] };
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("the live stream's keepalive acknowledgement", () => {
  it("waits for the changes queued before the keepalive, and acknowledges an idle keepalive", async () => {
    // Resumed from 0/300 after a crash: the server first replays a transaction recorded already.
    const stream = await postgresqlLive.stream(CONFIG, 1, "0/300");
    const service = fake.services.at(-1) as Fake;
    service.queueData("0/200", { tag: "begin", commitLsn: "0/208" });
    await turn();

    // The next read: that transaction's commit (handled at once, nothing to keep), then a new
    // transaction queued behind it, then the keepalive, whose position is past that transaction.
    service.queueData("0/208", { tag: "commit", commitEndLsn: "0/210", commitTime: 1_000_000n });
    service.queueData("0/400", { tag: "begin", commitLsn: "0/408" });
    service.queueData("0/404", { tag: "insert", relation, new: { id: "7" } });
    service.queueData("0/408", { tag: "commit", commitEndLsn: "0/410", commitTime: 1_000_000n });
    service.emit("heartbeat", "0/500", Date.now(), false);
    await turn();
    await turn();
    expect(service.acknowledged, "nothing acknowledged past the unrecorded transaction").toEqual([]);

    // The engine takes the change, records it, and acknowledges its commit.
    const batch = await stream.next({ maxKeys: 10, maxWaitMs: 0, signal: new AbortController().signal });
    expect(batch).toMatchObject({ keys: [{ text: "7", value: 7 }], lsn: "0/410", changes: 1 });
    // A keepalive while the batch is out (taken, not recorded yet): still nothing past it.
    service.emit("heartbeat", "0/500", Date.now(), false);
    await turn();
    expect(service.acknowledged).toEqual([]);
    await stream.ack("0/410");
    expect(service.acknowledged).toEqual(["0/410"]);

    // Nothing queued, taken or open: the keepalive's position is acknowledged, the slot moves on.
    service.emit("heartbeat", "0/500", Date.now(), false);
    await turn();
    expect(service.acknowledged).toEqual(["0/410", "0/500"]);

    // The server asks for an answer: it gets the recorded position at once, never a later one.
    service.queueData("0/600", { tag: "begin", commitLsn: "0/608" });
    service.emit("heartbeat", "0/700", Date.now(), true);
    await turn();
    expect(service.acknowledged).toEqual(["0/410", "0/500", "0/500"]);
    await stream.close();
  });
});

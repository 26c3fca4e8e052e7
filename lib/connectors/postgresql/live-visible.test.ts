// A live batch's keys are read only once its transactions are visible to the read. PostgreSQL streams
// a transaction as soon as its commit is in the WAL, a moment before other sessions can see it; read
// in that moment, its rows looked gone and nothing was sent for them (found by
// tests/ops/live-worker-kill.test.ts: a transaction's first 15 rows never arrived). The moment itself
// cannot be held from SQL, so here the transaction is held open instead: the wait is the same.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createScratchDatabase } from "@/tests/support/db";
import { pgConnectorConfig } from "@/tests/support/pg-connector";
import { liveKeyReader } from "./live-check";

let scratch: { url: string; drop(): Promise<void> };

beforeAll(async () => {
  scratch = await createScratchDatabase("ds_live_visible");
  const c = new pg.Client({ connectionString: scratch.url });
  await c.connect();
  await c.query("CREATE TABLE events (id integer PRIMARY KEY, name text); INSERT INTO events VALUES (1, 'one')");
  await c.end();
});

afterAll(async () => {
  await scratch?.drop();
});

describe("liveKeyReader", () => {
  it("waits until the batch's transactions are visible, then reads their rows", async () => {
    const reader = liveKeyReader(pgConnectorConfig(scratch.url), { query: "SELECT id, name FROM events", primaryKey: "id" });
    const writer = new pg.Client({ connectionString: scratch.url });
    await writer.connect();
    try {
      await writer.query("BEGIN");
      await writer.query("INSERT INTO events VALUES (2, 'two')");
      const { rows } = await writer.query<{ xid: string }>("SELECT txid_current()::text AS xid");
      // pgoutput names a transaction by the low 32 bits of its id.
      const xid = Number(BigInt(rows[0].xid) & 0xffffffffn);

      // Without the transaction's id the read does not wait: the row is not there yet.
      expect(await reader.read(["1", "2"])).toEqual([{ id: 1, name: "one" }]);
      // With it, the read waits while the transaction is not visible, and then sees its row.
      let done = false;
      const read = reader.read(["1", "2"], [xid]).finally(() => (done = true));
      await new Promise((r) => setTimeout(r, 300));
      expect(done, "still waiting while the transaction is open").toBe(false);
      await writer.query("COMMIT");
      expect(await read).toEqual([
        { id: 1, name: "one" },
        { id: 2, name: "two" },
      ]);
      // A transaction long visible does not hold a read up.
      expect(await reader.read(["2"], [xid])).toEqual([{ id: 2, name: "two" }]);
    } finally {
      await writer.end();
      await reader.close();
    }
  });
});

// Idempotent deliveries through the engine, against real local HTTP servers (a webhook and a Slack
// emulator): every request carries its record's key, a retried request repeats it, a record the
// ledger holds is never sent again (a batch whose commit was lost, a resumed run), a changed row
// gets a new key, full refresh re-sends per run, test runs stay out of the ledger, and the ledger
// goes with its sync. SQL destinations pay nothing.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Row } from "@/lib/connectors/types";
import { prisma } from "@/lib/db/client";
import { json, startHttpServer, type ReceivedRequest } from "@/tests/support/connectors";
import { createScratchDatabase, useTestDatabase } from "@/tests/support/db";
import { executeRun } from "./execute-run";
import { stopEngine, triggerSync, triggerTestRun } from "./index";
import { catalogOf, createFixture, createPeople, pgConnectorConfig, reloadRun, runRecords, sql, tableStream, type Fixture } from "./test-support";

const db = useTestDatabase();

process.env.ENGINE_RETRY_BASE_MS = "10";

const ROWS = 40;
let source: { url: string; drop(): Promise<void> };
let webhook: Awaited<ReturnType<typeof startHttpServer>>;

beforeAll(async () => {
  source = await createScratchDatabase("ds_ledger_src");
  await createPeople(source.url, ROWS);
  webhook = await startHttpServer();
});

afterAll(async () => {
  await stopEngine();
  await webhook?.close();
  await source?.drop();
});

beforeEach(() => {
  webhook.requests.length = 0;
  webhook.setHandler((_req, res) => json(res, 200, { ok: true }));
});

/** Requests per idempotency key, as a receiver would count them. */
function byKey(requests: ReceivedRequest[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of requests) {
    const key = String(r.headers["idempotency-key"]);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

const idOf = (r: ReceivedRequest) => Number((JSON.parse(r.body) as { id: number }).id);

async function webhookSync(options: { batch?: boolean; sync?: Row } = {}): Promise<Fixture> {
  const url = `${webhook.url}/hook`;
  const stream = tableStream("webhook", { url, batch_support: options.batch ?? false, batch_size: options.batch ? 7 : 0, primary_key: undefined });
  return createFixture({
    sourceUrl: source.url,
    destination: { connectorName: "Http", config: { destination_url: url, method: "POST", timeout: 5 }, catalog: catalogOf(stream, { request_rate_concurrency: 4 }) },
    query: "SELECT id, name, email, score FROM people",
    sync: { configuration: [], ...(options.sync ?? {}) },
  });
}

async function runOnce(f: Fixture) {
  const run = await triggerSync(f.workspaceId, f.syncId);
  const result = await executeRun(run.id);
  return { result, run: await reloadRun(run.id) };
}

const ledger = (syncId: number) =>
  sql<{ primary_key: string; idempotency_key: string; seq: number }>(db.url(), "SELECT primary_key, idempotency_key, seq FROM sync_deliveries WHERE sync_id = $1 ORDER BY primary_key::int", [syncId]);

/** A batch whose commit was lost (a worker killed after its requests): the run's states never landed. */
const loseCommit = async (syncId: number) => {
  await sql(db.url(), "DELETE FROM sync_states WHERE sync_id = $1", [syncId]);
  await sql(db.url(), "DELETE FROM sync_state_blocks WHERE sync_id = $1", [syncId]);
};

describe("HTTP deliveries with idempotency keys", () => {
  it("sends each record once with its key, and never again once the ledger holds it", async () => {
    const f = await webhookSync();
    const first = await runOnce(f);
    expect(first.run).toMatchObject({ status: "success", successfulRows: ROWS, failedRows: 0 });
    const keys = byKey(webhook.requests);
    expect(keys.size).toBe(ROWS);
    expect([...keys.values()].every((n) => n === 1)).toBe(true);
    expect([...keys.keys()].every((k) => /^[0-9a-f]{32}$/.test(k))).toBe(true);
    const rows = await ledger(f.syncId);
    expect(rows).toHaveLength(ROWS);
    expect(new Set(rows.map((r) => r.idempotency_key))).toEqual(new Set(keys.keys()));
    expect(rows.every((r) => r.seq === 1)).toBe(true);

    // The commit of the delivered batches is lost: the next run sees every row as new, and the ledger
    // keeps every one from being sent again. They are recorded skipped, counted delivered, and tracked.
    await loseCommit(f.syncId);
    webhook.requests.length = 0;
    const again = await runOnce(f);
    expect(webhook.requests).toHaveLength(0);
    expect(again.run).toMatchObject({ status: "success", totalRows: ROWS, successfulRows: ROWS, failedRows: 0 });
    const records = await runRecords(again.run.id);
    expect(records).toHaveLength(ROWS);
    for (const r of records) {
      expect(r.status).toBe("skipped");
      expect(r.error).toMatch(/^Already delivered with idempotency key [0-9a-f]{32}; not sent again\.$/);
      expect(keys.has(r.error!.split(" ")[5].replace(";", ""))).toBe(true);
    }
    const third = await runOnce(f);
    expect(third.run).toMatchObject({ status: "success", totalRows: 0, skippedRows: ROWS });
    expect(webhook.requests).toHaveLength(0);
  });

  it("repeats a record's key on every retry, and gives a changed row a new key (and a row back at an old version another)", async () => {
    const f = await webhookSync();
    // The receiver processes every request, but the first answer for each key is lost (a 500): the
    // retry carries the same key, so a receiver that drops repeats applies each row once.
    const answered = new Set<string>();
    webhook.setHandler((req, res) => {
      const key = String(req.headers["idempotency-key"]);
      if (answered.has(key)) return json(res, 200, { ok: true });
      answered.add(key);
      json(res, 500, { error: "lost answer" });
    });
    const first = await runOnce(f);
    expect(first.run).toMatchObject({ status: "success", successfulRows: ROWS, failedRows: 0 });
    const keys = byKey(webhook.requests);
    expect(keys.size).toBe(ROWS);
    expect([...keys.values()].every((n) => n === 2)).toBe(true);
    // Same key, same body, same row.
    for (const key of keys.keys()) {
      const bodies = webhook.requests.filter((r) => r.headers["idempotency-key"] === key).map((r) => r.body);
      expect(new Set(bodies).size).toBe(1);
    }

    webhook.setHandler((_req, res) => json(res, 200, { ok: true }));
    const keyOfRow = (id: number) => String(webhook.requests.find((r) => idOf(r) === id)?.headers["idempotency-key"]);
    const original = keyOfRow(1);
    await sql(source.url, "UPDATE people SET score = 1000 WHERE id = 1");
    webhook.requests.length = 0;
    await runOnce(f);
    expect(webhook.requests.map(idOf)).toEqual([1]);
    const changed = keyOfRow(1);
    expect(changed).not.toBe(original);
    await sql(source.url, "UPDATE people SET score = 1 WHERE id = 1"); // back to the first version
    webhook.requests.length = 0;
    await runOnce(f);
    expect(webhook.requests.map(idOf)).toEqual([1]);
    expect([original, changed]).not.toContain(keyOfRow(1));
    expect((await ledger(f.syncId)).find((r) => r.primary_key === "1")).toMatchObject({ seq: 3, idempotency_key: keyOfRow(1) });
  });

  it("batches: the records' keys ride in Idempotency-Keys, and a lost commit re-sends nothing", async () => {
    const f = await webhookSync({ batch: true });
    const first = await runOnce(f);
    expect(first.run).toMatchObject({ status: "success", successfulRows: ROWS });
    expect(webhook.requests.length).toBe(Math.ceil(ROWS / 7));
    const recordKeys = webhook.requests.flatMap((r) => String(r.headers["idempotency-keys"]).split(","));
    expect(new Set(recordKeys).size).toBe(ROWS);
    expect(new Set((await ledger(f.syncId)).map((r) => r.idempotency_key))).toEqual(new Set(recordKeys));
    await loseCommit(f.syncId);
    webhook.requests.length = 0;
    await runOnce(f);
    expect(webhook.requests).toHaveLength(0);
  });

  it("full refresh re-sends every row each run with new keys, but not twice within one run", async () => {
    const f = await webhookSync({ sync: { syncMode: "full_refresh" } });
    await runOnce(f);
    const firstKeys = new Set(byKey(webhook.requests).keys());
    webhook.requests.length = 0;
    const second = await triggerSync(f.workspaceId, f.syncId);
    await executeRun(second.id);
    const secondKeys = new Set(byKey(webhook.requests).keys());
    expect(secondKeys.size).toBe(ROWS);
    expect([...secondKeys].some((k) => firstKeys.has(k))).toBe(false);
    // The same run resumed after its commits were lost: nothing goes out again.
    await loseCommit(f.syncId);
    await sql(db.url(), "DELETE FROM sync_record_blocks WHERE sync_run_id = $1", [second.id]);
    await sql(db.url(), "UPDATE sync_runs SET status = 'queued', finished_at = NULL WHERE id = $1", [second.id]);
    webhook.requests.length = 0;
    expect(await executeRun(second.id)).toBe("success");
    expect(webhook.requests).toHaveLength(0);
    expect(await reloadRun(second.id)).toMatchObject({ successfulRows: ROWS, failedRows: 0 });
  });

  it("a test run sends its row with a key of its own and leaves the ledger alone", async () => {
    const f = await webhookSync();
    await runOnce(f);
    const before = await ledger(f.syncId);
    webhook.requests.length = 0;
    for (let i = 0; i < 2; i++) {
      const run = await triggerTestRun(f.workspaceId, f.syncId, "3");
      expect(await executeRun(run.id)).toBe("success");
    }
    expect(webhook.requests.map(idOf)).toEqual([3, 3]);
    const keys = webhook.requests.map((r) => String(r.headers["idempotency-key"]));
    expect(new Set([...keys, before.find((r) => r.primary_key === "3")!.idempotency_key]).size).toBe(3);
    expect(await ledger(f.syncId)).toEqual(before);
  });

  it("goes with its sync, and with its workspace", async () => {
    const f = await webhookSync();
    await runOnce(f);
    expect(await ledger(f.syncId)).toHaveLength(ROWS);
    await prisma().workspace.delete({ where: { id: f.workspaceId } });
    expect(await ledger(f.syncId)).toHaveLength(0);
  });
});

describe("Slack deliveries", () => {
  it("a message the ledger holds is not posted again", async () => {
    const slack = await startHttpServer((req, res) => json(res, 200, req.url === "/api/chat.postMessage" ? { ok: true, ts: "1.2" } : { ok: false }));
    try {
      const stream = tableStream("chat_message", { batch_support: false, batch_size: 1, primary_key: undefined });
      const f = await createFixture({
        sourceUrl: source.url,
        destination: {
          connectorName: "Slack",
          config: { auth_type: "bot_token", bot_token: "xoxb-test", channel: "C1", base_url: `${slack.url}/api`, message_template: "{{ name }}", timeout: 5 },
          catalog: catalogOf(stream, { request_rate_concurrency: 1 }),
        },
        query: "SELECT id, name FROM people WHERE id <= 5 ORDER BY id",
        sync: { configuration: [] },
      });
      const first = await runOnce(f);
      expect(first.run).toMatchObject({ status: "success", successfulRows: 5 });
      expect(slack.requests.map((r) => JSON.parse(r.body).text)).toEqual(["Person 1", "Person 2", "Person 3", "Person 4", "Person 5"]);
      expect(await ledger(f.syncId)).toHaveLength(5);
      await loseCommit(f.syncId);
      slack.requests.length = 0;
      const again = await runOnce(f);
      expect(slack.requests).toHaveLength(0);
      expect(again.run).toMatchObject({ status: "success", successfulRows: 5 });
      expect((await runRecords(again.run.id)).filter((r) => r.status === "skipped")).toHaveLength(5);
    } finally {
      await slack.close();
    }
  });
});

describe("idempotent destinations", () => {
  it("a PostgreSQL destination keeps no ledger", async () => {
    const destination = await createScratchDatabase("ds_ledger_dst");
    try {
      await sql(destination.url, "CREATE TABLE people (id integer PRIMARY KEY, name text, email text, score integer)");
      const f = await createFixture({
        sourceUrl: source.url,
        destination: { connectorName: "Postgresql", config: pgConnectorConfig(destination.url), catalog: catalogOf(tableStream("people")) },
        query: "SELECT id, name, email, score FROM people",
        sync: { configuration: [] },
      });
      await runOnce(f);
      expect(await ledger(f.syncId)).toHaveLength(0);
    } finally {
      await destination.drop();
    }
  });
});

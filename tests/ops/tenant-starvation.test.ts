// One tenant must not starve the shared workers: a destination answering 429 with Retry-After: 86400,
// or a stream limited to 1 request a day, used to park its run in a worker slot for hours while other
// workspaces' runs stayed queued. With one worker slot, workspace A's run must pause (holding no slot
// and no lock, showing until when it waits), workspace B's run must complete meanwhile, and A must
// resume afterwards without sending a recorded row twice. Destinations are real HTTP servers on
// 127.0.0.1; the worker runs in this process.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pgPool } from "@/lib/db/client";
import { startEngine, stopEngine, triggerSync } from "@/lib/engine";
import { isFree, runLockKey } from "@/lib/engine/locks";
import { catalogOf, createFixture, createPeople, reloadRun, runRecords, tableStream, waitFor } from "@/lib/engine/test-support";
import type { SyncRun } from "@/lib/generated/prisma/client";
import { serializeSyncRun } from "@/lib/serializers/sync-runs";
import { createScratchDatabase, useTestDatabase } from "@/tests/support/db";

useTestDatabase();

// Retry-After is honoured up to 2 s here (300 s by default) and any wait over 1 s frees the worker.
// Many write attempts: A may pause several times while the test keeps its destination refusing.
process.env.ENGINE_MAX_RETRY_AFTER_SECONDS = "2";
process.env.ENGINE_RELEASE_WAIT_SECONDS = "1";
process.env.ENGINE_WRITE_ATTEMPTS = "50";

const ROWS = 12;
let source: { url: string; drop(): Promise<void> };

/** A destination counting deliveries per row id; `refuse(n)` answers 429 (86400 s) after n deliveries. */
function destination() {
  const delivered = new Map<number, number>();
  const state = { acceptFirst: Infinity, refused: 0 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const total = [...delivered.values()].reduce((a, b) => a + b, 0);
      if (total >= state.acceptFirst) {
        state.refused++;
        res.writeHead(429, { "retry-after": "86400", "content-type": "text/plain" }).end("come back tomorrow");
        return;
      }
      const id = Number((JSON.parse(Buffer.concat(chunks).toString()) as { id: number }).id);
      delivered.set(id, (delivered.get(id) ?? 0) + 1);
      res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
    });
  });
  return {
    delivered,
    state,
    listen: () => new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve)),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    url: () => `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
  };
}

type Destination = ReturnType<typeof destination>;

/** A workspace of its own with a sync of `query` to `dest`, one record per request. */
function tenant(dest: Destination, query: string, rate: { request_rate_limit?: number; request_rate_limit_unit?: "day" } = {}) {
  const url = dest.url();
  const stream = tableStream("webhook", { url, batch_support: false, batch_size: 0, primary_key: undefined, ...rate });
  return createFixture({
    sourceUrl: source.url,
    destination: { connectorName: "Http", config: { destination_url: url, method: "POST" }, catalog: catalogOf(stream, { request_rate_concurrency: 1 }) },
    query,
    sync: { cursorField: "updated_at" },
  });
}

const ended = (run: SyncRun) => ["success", "failed", "canceled"].includes(run.status);

const finished = (runId: number) => waitFor(async () => ((r) => (ended(r) ? r : undefined))(await reloadRun(runId)), 90_000, `run ${runId} to finish`);

const paused = (runId: number) =>
  waitFor(async () => ((r) => (r.status === "paused" || ended(r) ? r : undefined))(await reloadRun(runId)), 60_000, `run ${runId} to pause`);

async function lockIsFree(run: SyncRun): Promise<boolean> {
  const client = await pgPool().connect();
  try {
    await client.query("BEGIN");
    return await isFree(client, runLockKey(run));
  } finally {
    await client.query("ROLLBACK").catch(() => undefined);
    client.release();
  }
}

/** Every row delivered exactly once, and one successful record per row. */
async function expectEachRowOnce(run: SyncRun, dest: Destination, rows: number) {
  expect(run).toMatchObject({ status: "success", successfulRows: rows, failedRows: 0, error: null });
  expect(dest.delivered.size).toBe(rows);
  expect([...dest.delivered.values()].every((n) => n === 1), JSON.stringify([...dest.delivered])).toBe(true);
  const records = await runRecords(run.id);
  expect(records).toHaveLength(rows);
  expect(new Set(records.map((r) => r.primaryKey)).size).toBe(rows);
  expect(records.every((r) => r.status === "success")).toBe(true);
}

beforeAll(async () => {
  source = await createScratchDatabase("ds_ops_starve");
  await createPeople(source.url, ROWS);
  // One worker slot shared by every workspace.
  await startEngine({ worker: true, scheduler: false, concurrency: 1 });
});

afterAll(async () => {
  await stopEngine();
  await source?.drop();
});

describe("a tenant's destination answering 429 with Retry-After: 86400", () => {
  const a = destination();
  const b = destination();
  beforeAll(async () => {
    await a.listen();
    await b.listen();
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  it("pauses that run without a worker slot, another workspace's run completes meanwhile, and it resumes sending each row once", { timeout: 180_000 }, async () => {
    a.state.acceptFirst = 4;
    const fa = await tenant(a, "SELECT id, name, email, score, updated_at FROM people");
    const fb = await tenant(b, "SELECT id, name, email, score, updated_at FROM people");
    const runA = await triggerSync(fa.workspaceId, fa.syncId);

    const waiting = await paused(runA.id);
    expect(waiting.status).toBe("paused");
    // The rows delivered before the 429 are recorded; the run says until when it waits.
    expect(waiting.successfulRows).toBe(4);
    expect(a.state.refused).toBeGreaterThan(0);
    const shown = serializeSyncRun(waiting, { actors: true }).attributes;
    expect(shown.status).toBe("paused");
    expect(shown.waiting_until).toEqual(expect.any(String));
    // After the run began (not after its last update: a loaded machine may touch the row once the short test wait has passed).
    expect(new Date(shown.waiting_until as string).getTime()).toBeGreaterThan(waiting.startedAt!.getTime());

    const runB = await triggerSync(fb.workspaceId, fb.syncId);
    const doneB = await finished(runB.id);
    expect(doneB.status).toBe("success");
    expect(doneB.successfulRows).toBe(ROWS);
    // B got the only worker slot while A had not ended: A waits in the queue, not in the worker.
    const meanwhile = await reloadRun(runA.id);
    expect(ended(meanwhile), `A is ${meanwhile.status}`).toBe(false);
    expect(a.delivered.size).toBe(4);

    // The destination accepts again; after its (capped) wait A resumes from its records.
    a.state.acceptFirst = Infinity;
    const doneA = await finished(runA.id);
    await expectEachRowOnce(doneA, a, ROWS);
    expect(serializeSyncRun(doneA, { actors: true }).attributes.waiting_until).toBeNull();
    expect((doneA.timings as { wait: number }).wait).toBeGreaterThan(0);
    await expectEachRowOnce(doneB, b, ROWS);
  });
});

describe("a stream limited to 1 request a day", () => {
  const a = destination();
  const b = destination();
  beforeAll(async () => {
    await a.listen();
    await b.listen();
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  it("pauses that run until the next slot, holding no worker or lock, and resumes it then without re-sending", { timeout: 180_000 }, async () => {
    const fa = await tenant(a, "SELECT id, name, email, score, updated_at FROM people WHERE id <= 2", {
      request_rate_limit: 1,
      request_rate_limit_unit: "day",
    });
    const fb = await tenant(b, "SELECT id, name, email, score, updated_at FROM people");
    const runA = await triggerSync(fa.workspaceId, fa.syncId);

    const waiting = await paused(runA.id);
    expect(waiting.status).toBe("paused");
    expect(waiting.successfulRows).toBe(1);
    // The next slot is a day away, and that is how long it waits.
    expect(waiting.waitingUntil!.getTime()).toBeGreaterThan(Date.now() + 23 * 3600_000);
    expect(await lockIsFree(waiting)).toBe(true);

    const runB = await triggerSync(fb.workspaceId, fb.syncId);
    const doneB = await finished(runB.id);
    expect(doneB.status).toBe("success");
    const meanwhile = await reloadRun(runA.id);
    expect(meanwhile.status).toBe("paused");
    expect(a.delivered.size).toBe(1);
    await expectEachRowOnce(doneB, b, ROWS);

    // A day passes: the budget's next slot and the run's job come due now.
    await pgPool().query("UPDATE rate_limit_budgets SET next_at = clock_timestamp() WHERE key = $1", [`destination:${fa.destinationId}`]);
    const moved = await pgPool().query("UPDATE pgboss.job SET start_after = now() WHERE name = 'sync-run' AND data->>'runId' = $1 AND state = 'created'", [
      String(runA.id),
    ]);
    expect(moved.rowCount).toBe(1);
    const doneA = await finished(runA.id);
    await expectEachRowOnce(doneA, a, 2);
  });
});

// Fault: sync workers SIGKILLed mid-run on an HTTP webhook destination, which is not idempotent: a
// request sent twice is an effect twice. Real worker processes (scripts/worker.ts) run a sync of
// ROWS rows, one record per request, into a receiver on 127.0.0.1 that counts deliveries by their
// Idempotency-Key. The receiver itself kills the worker at chosen requests, at the worst moments:
// while the request is in hand but unanswered (the receiver applied it, the worker never hears),
// right after answering (before or after the worker's ledger write, a race), and at random times.
// A fresh worker takes the run over each time. In the end every row is delivered, no row is
// delivered under two keys, and the figures are reported: requests whose key had been received
// before (a receiver honouring the header drops them), and effects after that dedupe.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stopEngine, triggerSync } from "@/lib/engine";
import { catalogOf, createFixture, reloadRun, runRecords, spawnWorker, sql, stopWorker, tableStream, waitFor } from "@/lib/engine/test-support";
import { createScratchDatabase, useTestDatabase } from "@/tests/support/db";

const db = useTestDatabase();

const ROWS = Number(process.env.OPS_HTTP_ROWS ?? 3000);
const WORKER_ENV = {
  ENGINE_BATCH_SIZE: "250",
  ENGINE_REAPER_INTERVAL_MS: "300",
  ENGINE_MAX_RUN_ATTEMPTS: "20",
  WORKER_SCHEDULER: "0",
};
/** Requests (1-based, in arrival order) at which the receiver kills the worker, and how. */
const KILLS: { at: number; when: "before_answer" | "after_answer" }[] = [
  { at: Math.floor(ROWS * 0.08), when: "before_answer" },
  { at: Math.floor(ROWS * 0.2), when: "after_answer" },
  { at: Math.floor(ROWS * 0.35), when: "before_answer" },
  { at: Math.floor(ROWS * 0.5), when: "after_answer" },
  { at: Math.floor(ROWS * 0.65), when: "after_answer" },
  { at: Math.floor(ROWS * 0.8), when: "before_answer" },
];

let source: { url: string; drop(): Promise<void> };
let server: Server;
let worker: ReturnType<typeof spawnWorker> | undefined;
const outputs: string[] = [];

/** What the receiver saw. */
const received = {
  requests: 0,
  /** Requests per key. */
  byKey: new Map<string, number>(),
  /** Keys per row id: more than one would be a duplicate a receiver could not drop. */
  keysOfRow: new Map<number, Set<string>>(),
  /** Requests without a key (must stay 0). */
  unkeyed: 0,
};
const kills: string[] = [];

function startWorker(): void {
  const w = spawnWorker(db.url(), WORKER_ENV);
  outputs.push("");
  const slot = outputs.length - 1;
  w.on("exit", () => (outputs[slot] = w.output()));
  worker = w;
}

/** SIGKILL the current worker (not awaited by the receiver: the kill lands while it goes on). */
function killWorker(what: string): void {
  const victim = worker;
  if (!victim || victim.exitCode !== null || victim.signalCode !== null) return;
  worker = undefined;
  kills.push(what);
  void stopWorker(victim, "SIGKILL").then(startWorker);
}

beforeAll(async () => {
  source = await createScratchDatabase("ds_ops_http_src");
  await sql(source.url, `CREATE TABLE events AS SELECT g AS id, 'Event ' || g AS name, g % 13 AS score FROM generate_series(1, ${ROWS}) g`);
  await sql(source.url, "ALTER TABLE events ADD PRIMARY KEY (id)");
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const n = ++received.requests;
      const key = req.headers["idempotency-key"];
      const id = Number((JSON.parse(Buffer.concat(chunks).toString()) as { id: number }).id);
      if (typeof key !== "string") received.unkeyed++;
      else {
        // Applied as it arrives: a receiver's effect happens before its answer is on the wire.
        received.byKey.set(key, (received.byKey.get(key) ?? 0) + 1);
        const keys = received.keysOfRow.get(id) ?? new Set<string>();
        keys.add(key);
        received.keysOfRow.set(id, keys);
      }
      const kill = KILLS.find((k) => k.at === n);
      if (kill?.when === "before_answer") {
        killWorker(`request ${n}: before answering (row ${id} applied, the worker never heard)`);
        res.destroy();
        return;
      }
      // A little time per request, so the run lasts long enough to be interrupted.
      setTimeout(() => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end('{"ok":true}', () => {
          if (kill?.when === "after_answer") killWorker(`request ${n}: just after answering (row ${id})`);
        });
      }, 2);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
});

afterAll(async () => {
  if (worker) await stopWorker(worker, "SIGKILL");
  await stopEngine();
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  await source?.drop();
});

describe(`a ${ROWS}-row webhook sync with its worker SIGKILLed ${KILLS.length} times mid-run`, () => {
  it("delivers every row, never one row under two keys, and a receiver that honours Idempotency-Key applies each once", { timeout: 600_000 }, async () => {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const stream = tableStream("webhook", { url, batch_support: false, batch_size: 0, primary_key: undefined });
    const f = await createFixture({
      sourceUrl: source.url,
      destination: { connectorName: "Http", config: { destination_url: url, method: "POST", timeout: 10 }, catalog: catalogOf(stream, { request_rate_concurrency: 4 }) },
      query: "SELECT id, name, score FROM events",
      sync: { configuration: [] },
    });
    startWorker();
    const run = await triggerSync(f.workspaceId, f.syncId);
    const done = await waitFor(
      async () => {
        const r = await reloadRun(run.id);
        return ["success", "failed", "canceled"].includes(r.status) ? r : undefined;
      },
      480_000,
      `run ${run.id} to finish; kills so far: ${kills.join("; ")}`,
    );
    const logs = () => [...outputs.map((o, i) => `worker ${i + 1}:\n${o}`), `current:\n${worker?.output() ?? ""}`].join("\n");
    expect(done, logs()).toMatchObject({ status: "success", error: null, failedRows: 0, successfulRows: ROWS });

    const repeatedKeyRequests = [...received.byKey.values()].reduce((n, c) => n + c - 1, 0);
    const rowsUnderTwoKeys = [...received.keysOfRow.values()].filter((keys) => keys.size > 1).length;
    const effectsAfterDedupe = received.byKey.size;
    const skipped = (await runRecords(run.id)).filter((r) => r.status === "skipped").length;
    console.log(
      [
        `worker-kill on HTTP (${ROWS} rows, one per request): ${kills.length} SIGKILLs, run attempts ${done.attempts}`,
        ...kills.map((k) => `  killed at ${k}`),
        `  requests received: ${received.requests}; without a key: ${received.unkeyed}`,
        `  requests whose Idempotency-Key had been received before: ${repeatedKeyRequests}`,
        `  effects after the receiver drops repeated keys: ${effectsAfterDedupe} (rows: ${ROWS}); rows delivered under two keys: ${rowsUnderTwoKeys}`,
        `  records skipped by the ledger (delivered before a kill, not sent again): ${skipped}`,
      ].join("\n"),
    );

    // Every kill landed mid-run (the receiver fires them), and the run was taken over each time.
    expect(kills).toHaveLength(KILLS.length);
    expect(done.attempts).toBeGreaterThan(KILLS.length);
    expect(received.unkeyed).toBe(0);
    // Every row delivered, each under exactly one key: after the receiver's dedupe, one effect per row.
    expect(received.keysOfRow.size).toBe(ROWS);
    expect(rowsUnderTwoKeys).toBe(0);
    expect(effectsAfterDedupe).toBe(ROWS);
    // A repeated key only where a kill cut a request off before the ledger knew it was delivered:
    // at most the requests in flight at each kill (4 at a time), never a batch's worth.
    expect(repeatedKeyRequests).toBeLessThanOrEqual(KILLS.length * 4);
    // The ledger kept the rows delivered before each kill from going out again.
    expect(skipped).toBeGreaterThan(0);
    // Every record of the run once, every row tracked: a re-run sends nothing.
    const [rec] = await sql<{ n: string; keys: string }>(db.url(), "SELECT count(*) AS n, count(DISTINCT primary_key) AS keys FROM sync_record_rows WHERE sync_run_id = $1", [run.id]);
    expect({ n: Number(rec.n), keys: Number(rec.keys) }).toEqual({ n: ROWS, keys: ROWS });
    const before = received.requests;
    const rerun = await triggerSync(f.workspaceId, f.syncId);
    const again = await waitFor(
      async () => {
        const r = await reloadRun(rerun.id);
        return ["success", "failed", "canceled"].includes(r.status) ? r : undefined;
      },
      120_000,
      "the re-run to finish",
    );
    expect(again).toMatchObject({ status: "success", totalRows: 0, skippedRows: ROWS });
    expect(received.requests).toBe(before);
  });
});

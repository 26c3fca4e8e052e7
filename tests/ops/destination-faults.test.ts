// Faults: a destination HTTP server (127.0.0.1) failing 20% of requests with 500 or 429 +
// Retry-After, and a source database that cannot be reached. The sync worker runs in this process.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prisma } from "@/lib/db/client";
import { startEngine, stopEngine, triggerSync } from "@/lib/engine";
import { catalogOf, createFixture, createPeople, reloadRun, runRecords, tableStream, waitFor } from "@/lib/engine/test-support";
import { createScratchDatabase, useTestDatabase } from "@/tests/support/db";

useTestDatabase();

// Few attempts and short backoff, so some rows exhaust their retries in a run and are retried by the next.
process.env.ENGINE_WRITE_ATTEMPTS = "2";
process.env.ENGINE_RETRY_BASE_MS = "50";

const ROWS = 300;
let source: { url: string; drop(): Promise<void> };

beforeAll(async () => {
  source = await createScratchDatabase("ds_ops_faults");
  await createPeople(source.url, ROWS);
  await startEngine({ worker: true, scheduler: false, concurrency: 1 });
});

afterAll(async () => {
  await stopEngine();
  await source?.drop();
});

const finished = (runId: number) =>
  waitFor(
    async () => {
      const r = await reloadRun(runId);
      return ["success", "failed", "canceled"].includes(r.status) ? r : undefined;
    },
    60_000,
    `run ${runId} to finish`,
  );

describe("a destination failing 20% of requests with 500 or 429 (Retry-After)", () => {
  let server: Server;
  const delivered = new Map<number, number>();
  const injected = { 500: 0, 429: 0, ok: 0 };
  // A seeded sequence, so the fault pattern is the same on every run of the test.
  let state = 12345;
  const next = () => ((state = (state * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const roll = next();
        if (roll < 0.1) {
          injected[500]++;
          res.writeHead(500, { "content-type": "text/plain" }).end("injected failure");
        } else if (roll < 0.2) {
          injected[429]++;
          res.writeHead(429, { "retry-after": "1", "content-type": "text/plain" }).end("slow down");
        } else {
          injected.ok++;
          const id = Number((JSON.parse(Buffer.concat(chunks).toString()) as { id: number }).id);
          delivered.set(id, (delivered.get(id) ?? 0) + 1);
          res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("delivers every row in the end, records each failure on its record, and shows the backoff in the run's timings", { timeout: 120_000 }, async () => {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const stream = tableStream("webhook", { url, batch_support: false, batch_size: 0, primary_key: undefined });
    const f = await createFixture({
      sourceUrl: source.url,
      destination: { connectorName: "Http", config: { destination_url: url, method: "POST" }, catalog: catalogOf(stream, { request_rate_concurrency: 8 }) },
      query: "SELECT id, name, email, score, updated_at FROM people",
    });

    const runs = [];
    let first: Awaited<ReturnType<typeof finished>> | undefined;
    for (let i = 0; i < 8; i++) {
      const run = await finished((await triggerSync(f.workspaceId, f.syncId)).id);
      runs.push({ id: run.id, status: run.status, ok: run.successfulRows, failed: run.failedRows, wait: (run.timings as { wait?: number }).wait });
      first ??= run;
      if (run.failedRows === 0) break;
    }
    console.log(
      `destination faults: ${injected[500]} × 500 and ${injected[429]} × 429 injected over ${injected[500] + injected[429] + injected.ok} requests; runs ${JSON.stringify(runs)}`,
    );

    // The first run: most rows through despite the faults; those that ran out of attempts are failed
    // records carrying the destination's answer, and the 429 backoff shows as waiting time.
    expect(first!.successfulRows + first!.failedRows).toBe(ROWS);
    expect(first!.failedRows).toBeGreaterThan(0);
    const failures = (await runRecords(first!.id)).filter((r) => r.status === "failed");
    expect(failures).toHaveLength(first!.failedRows);
    for (const r of failures) expect(r.error).toMatch(/HTTP (500|429) from 127\.0\.0\.1/);
    expect((first!.timings as { wait: number }).wait).toBeGreaterThanOrEqual(1000);

    // Later runs retry exactly the failed rows until none is left: every row delivered.
    expect(runs.at(-1)!.failed).toBe(0);
    expect(runs.reduce((n, r) => n + r.ok, 0)).toBe(ROWS);
    expect([...delivered.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: ROWS }, (_, i) => i + 1));
    expect(injected[500]).toBeGreaterThan(0);
    expect(injected[429]).toBeGreaterThan(0);
  });
});

describe("a source database that cannot be reached", () => {
  it("fails the run with a clear error, and the sync with it", async () => {
    // A port nothing listens on (loopback only).
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));

    const f = await createFixture({
      sourceUrl: `postgresql://postgres:pw@127.0.0.1:${port}/nowhere`,
      destination: { connectorName: "Http", config: { destination_url: "http://127.0.0.1:9/x", method: "POST" }, catalog: catalogOf(tableStream("x", { batch_support: false })) },
    });
    const run = await finished((await triggerSync(f.workspaceId, f.syncId)).id);
    expect(run.status).toBe("failed");
    expect(run.error).toMatch(new RegExp(`127\\.0\\.0\\.1:${port}|connection refused|ECONNREFUSED`, "i"));
    expect(run.error!.length).toBeLessThan(500);
    expect(run.successfulRows).toBe(0);
    expect((await prisma().sync.findUniqueOrThrow({ where: { id: f.syncId } })).status).toBe("failed");
  });
});

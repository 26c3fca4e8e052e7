// A tenant whose destination is slow (not rate-limited: slow) must not hold every worker slot:
// with WORKSPACE_MAX_ACTIVE_RUNS=1 and two slots, workspace A's second run waits in the queue while
// its first crawls, and workspace B's run takes the free slot and completes. Real PostgreSQL, real
// HTTP servers on 127.0.0.1, the worker in this process.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startEngine, stopEngine, triggerSync } from "@/lib/engine";
import { catalogOf, createFixture, createPeople, reloadRun, tableStream, waitFor } from "@/lib/engine/test-support";
import { createScratchDatabase, useTestDatabase } from "@/tests/support/db";

useTestDatabase();
process.env.WORKSPACE_MAX_ACTIVE_RUNS = "1";

let source: { url: string; drop(): Promise<void> };
const servers: Server[] = [];

/** A destination that answers each record after `delayMs`. */
async function destination(delayMs: number): Promise<string> {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => setTimeout(() => res.writeHead(200, { "content-type": "application/json" }).end("{}"), delayMs));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
}

/** A sync of the people table to `url`, in a new workspace or in `workspaceId`. */
function sync(url: string, workspaceId?: number) {
  const stream = tableStream("webhook", { url, batch_support: false, batch_size: 0, primary_key: undefined });
  return createFixture({
    sourceUrl: source.url,
    workspaceId,
    destination: { connectorName: "Http", config: { destination_url: url, method: "POST" }, catalog: catalogOf(stream, { request_rate_concurrency: 1 }) },
    query: "SELECT id, name, email, score, updated_at FROM people",
  });
}

beforeAll(async () => {
  source = await createScratchDatabase("ds_ops_share");
  await createPeople(source.url, 10);
  await startEngine({ worker: true, scheduler: false, concurrency: 2 });
});

afterAll(async () => {
  await stopEngine();
  for (const server of servers) await new Promise((resolve) => server.close(resolve));
  await source?.drop();
  delete process.env.WORKSPACE_MAX_ACTIVE_RUNS;
});

it("a workspace's slow runs take one slot at a time; another workspace's run completes meanwhile", { timeout: 180_000 }, async () => {
  // About 10 × 1.5 s per run of workspace A; workspace B's destination answers at once.
  const slow = await destination(1500);
  const a1 = await sync(slow);
  const a2 = await sync(slow, a1.workspaceId);
  const b = await sync(await destination(0));

  const runA1 = await triggerSync(a1.workspaceId, a1.syncId);
  await waitFor(async () => ((r) => (r.status === "started" || r.status === "querying" ? r : undefined))(await reloadRun(runA1.id)), 30_000, "A's first run to start");
  const runA2 = await triggerSync(a2.workspaceId, a2.syncId);
  const runB = await triggerSync(b.workspaceId, b.syncId);

  const doneB = await waitFor(async () => ((r) => (r.status === "success" || r.status === "failed" ? r : undefined))(await reloadRun(runB.id)), 60_000, "B's run to end");
  expect(doneB.status).toBe("success");
  // Workspace A still holds only its one slot: its second run has not started yet.
  expect((await reloadRun(runA1.id)).status).not.toBe("success");
  expect((await reloadRun(runA2.id)).status).toBe("queued");
  // And it runs once the first is done.
  const doneA2 = await waitFor(async () => ((r) => (r.status === "success" || r.status === "failed" ? r : undefined))(await reloadRun(runA2.id)), 120_000, "A's second run to end");
  expect(doneA2.status).toBe("success");
});

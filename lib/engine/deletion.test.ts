// Bookkeeping has no foreign keys (statement-level delete triggers cascade instead), so a run that
// writes while its workspace is deleted must not leave records or states behind. The run's batch
// holds its run row (FOR KEY SHARE): a deletion either waits for the batch to commit, then its
// triggers remove what it wrote, or comes first, and the run writes nothing more.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prisma } from "@/lib/db/client";
import { createScratchDatabase, useTestDatabase } from "@/tests/support/db";
import { stopEngine, triggerSync } from "./index";
import { executeRun } from "./execute-run";
import { catalogOf, createFixture, createPeople, sql, tableStream, waitFor } from "./test-support";

useTestDatabase();

let source: { url: string; drop(): Promise<void> };
let server: Server;
let url = "";
let arrived = 0;
const held: (() => void)[] = [];

beforeAll(async () => {
  source = await createScratchDatabase("ds_src");
  await createPeople(source.url, 30);
  // A webhook that answers only when told to, so the test can act while a batch is being sent.
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      arrived++;
      held.push(() => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end('{"ok":true}');
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
});

afterAll(async () => {
  for (const answer of held.splice(0)) answer();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await stopEngine();
  await source?.drop();
});

async function leftovers(syncId: number, runId: number) {
  const [row] = await sql<{ records: number; states: number }>(
    process.env.DATABASE_URL as string,
    `SELECT (SELECT count(*)::int FROM sync_record_rows WHERE sync_run_id = $2) AS records,
            (SELECT count(*)::int FROM sync_states WHERE sync_id = $1) + (SELECT count(*)::int FROM sync_state_blocks WHERE sync_id = $1) AS states`,
    [syncId, runId],
  );
  return row;
}

describe("a workspace deleted while its sync runs", () => {
  it("leaves no records or states of the run behind", { timeout: 60_000 }, async () => {
    const stream = tableStream("webhook", { url, batch_support: false, batch_size: 0, primary_key: undefined });
    const f = await createFixture({
      sourceUrl: source.url,
      destination: { connectorName: "Http", config: { destination_url: url, method: "POST" }, catalog: catalogOf(stream) },
    });
    const run = await triggerSync(f.workspaceId, f.syncId);
    const execution = executeRun(run.id);
    // The first batch is being sent: delete the workspace, then let the destination answer.
    await waitFor(async () => (arrived > 0 ? true : undefined), 20_000, "the first request");
    await prisma().workspace.delete({ where: { id: f.workspaceId } });
    const answering = setInterval(() => held.splice(0).forEach((answer) => answer()), 20);
    try {
      await execution;
    } finally {
      clearInterval(answering);
    }
    expect(await leftovers(f.syncId, run.id)).toEqual({ records: 0, states: 0 });
  });
});

// Alerts from real runs: a PostgreSQL → PostgreSQL sync run by the engine's own worker (in this
// process), whose source query fails twice and then succeeds. The run_failed rule's webhook receives
// exactly one firing and one resolved message, sent from the alert queue after each run's end.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { prisma } from "@/lib/db/client";
import { startDatasyncEngine } from "@/lib/services/run-events";
import { stopEngine, triggerSync } from "@/lib/engine";
import { catalogOf, createFixture, createPeople, pgConnectorConfig, reloadRun, tableStream, waitFor } from "@/lib/engine/test-support";
import { newMember } from "@/tests/support/auth-fixtures";
import { createScratchDatabase, useTestDatabase } from "@/tests/support/db";
import { createAlertChannel } from "./channels";
import { createAlertRule } from "./rules";

useTestDatabase();

let source: { url: string; drop(): Promise<void> };
let destination: { url: string; drop(): Promise<void> };
let server: Server;
let hookUrl = "";
const posts: Record<string, unknown>[] = [];

beforeAll(async () => {
  source = await createScratchDatabase("ds_src");
  destination = await createScratchDatabase("ds_dst");
  await createPeople(source.url, 20);
  await createPeople(destination.url, 0);
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      posts.push(JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  hookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  await startDatasyncEngine({ worker: true, scheduler: false, concurrency: 1 });
});

afterAll(async () => {
  await stopEngine();
  await new Promise((r) => server.close(r));
  await source?.drop();
  await destination?.drop();
});

async function runToEnd(workspaceId: number, syncId: number) {
  const run = await triggerSync(workspaceId, syncId);
  return waitFor(async () => {
    const r = await reloadRun(run.id);
    return r.status === "success" || r.status === "failed" ? r : undefined;
  }, 60_000, `run ${run.id} to end`);
}

it("a sync that fails twice then recovers sends one firing and one resolved message", async () => {
  const admin = await newMember("Admin");
  const f = await createFixture({
    sourceUrl: source.url,
    workspaceId: admin.workspaceId,
    query: "SELECT id, name, email, score, updated_at FROM no_such_table",
    destination: { connectorName: "Postgresql", config: pgConnectorConfig(destination.url), catalog: catalogOf(tableStream("people")) },
  });
  const hook = await createAlertChannel(admin.auth, { name: "hook", channel_type: "webhook", url: hookUrl });
  const rule = await createAlertRule(admin.auth, { name: "People sync", sync_id: f.syncId, condition: "run_failed", channel_ids: [hook.id] });

  const first = await runToEnd(f.workspaceId, f.syncId);
  expect(first.status).toBe("failed");
  await expect.poll(() => posts.length, { timeout: 30_000 }).toBe(1);
  expect(await runToEnd(f.workspaceId, f.syncId)).toMatchObject({ status: "failed" });

  await prisma().model.update({ where: { id: f.modelId }, data: { query: "SELECT id, name, email, score, updated_at FROM people" } });
  const third = await runToEnd(f.workspaceId, f.syncId);
  expect(third.status).toBe("success");
  await expect.poll(() => posts.length, { timeout: 30_000 }).toBe(2);
  // The second failure's evaluation is done (the state names the last run) and sent nothing.
  await expect.poll(async () => (await prisma().alertState.findFirst({ where: { alertRuleId: rule.id } }))?.lastRunId, { timeout: 30_000 }).toBe(third.id);

  expect(posts.map((p) => [p.event, p.sync_run_id])).toEqual([
    ["alert.firing", first.id],
    ["alert.resolved", third.id],
  ]);
  expect(String(posts[0].message)).toMatch(/no_such_table/);
  const events = await prisma().alertEvent.findMany({ where: { alertRuleId: rule.id }, orderBy: { id: "asc" } });
  expect(events.map((e) => e.kind)).toEqual(["firing", "resolved"]);
});

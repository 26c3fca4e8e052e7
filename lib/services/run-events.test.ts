// The subscribers wired at process start write their queue rows with the run's status change: a
// change that rolls back leaves no webhook delivery and no alert job; one that commits leaves both.
// A process dying after the commit therefore cannot lose them (the jobs of the deliveries are sent
// after the commit; the webhook worker's sweep re-sends one lost there).
import { afterAll, beforeAll, expect, it } from "vitest";
import { pgPool, prisma } from "@/lib/db/client";
import { withTransaction } from "@/lib/engine";
import { stopBoss } from "@/lib/engine/queue";
import { setRunStatus } from "@/lib/engine/run-store";
import { newMember } from "@/tests/support/auth-fixtures";
import { useTestDatabase } from "@/tests/support/db";
import { bareSync } from "@/tests/support/sync-fixtures";
import { createAlertChannel } from "./notifications/alerts/channels";
import { createAlertRule } from "./notifications/alerts/rules";
import { registerRunSubscribers } from "./run-events";

useTestDatabase();

let workspaceId: number;
let syncId: number;

beforeAll(async () => {
  registerRunSubscribers();
  const admin = await newMember("Admin");
  workspaceId = admin.workspaceId;
  syncId = (await bareSync(workspaceId)).sync.id;
  const channel = await createAlertChannel(admin.auth, { name: "ops", channel_type: "email", recipients: [admin.user.email] });
  await createAlertRule(admin.auth, { name: "failures", condition: "run_failed", channel_ids: [channel.id] });
  await prisma().webhookSubscription.create({
    data: { workspaceId, url: "https://example.com/hook", events: ["sync_run.failed"], syncIds: [], secretEncrypted: "x", secretLast4: "xxxx" },
  });
});

afterAll(() => stopBoss());

async function queued(runId: number): Promise<{ deliveries: number; alertJobs: number }> {
  const deliveries = await prisma().webhookDelivery.count({ where: { workspaceId, payload: { path: ["data", "sync_run_id"], equals: runId } } });
  const { rows } = await pgPool().query<{ n: string }>("SELECT count(*) AS n FROM pgboss.job WHERE name = 'alerts' AND (data->>'runId')::int = $1", [runId]);
  return { deliveries, alertJobs: Number(rows[0].n) };
}

it("a run's end and its webhook delivery and alert job commit together, or not at all", async () => {
  const run = await prisma().syncRun.create({ data: { workspaceId, syncId, status: "in_progress", startedAt: new Date() } });
  await expect(
    withTransaction(pgPool(), async (client) => {
      await setRunStatus(client, run.id, "failed", { error: "boom", finished: true });
      expect(await queued(run.id)).toEqual({ deliveries: 0, alertJobs: 0 }); // not visible before the commit
      throw new Error("rolled back");
    }),
  ).rejects.toThrow("rolled back");
  expect(await queued(run.id)).toEqual({ deliveries: 0, alertJobs: 0 });

  expect(await setRunStatus(pgPool(), run.id, "failed", { error: "boom", finished: true })).toBe(true);
  expect(await queued(run.id)).toEqual({ deliveries: 1, alertJobs: 1 });
  const delivery = await prisma().webhookDelivery.findFirstOrThrow({ where: { workspaceId } });
  expect(delivery).toMatchObject({ eventType: "sync_run.failed", status: "pending" });
  expect(delivery.payload).toMatchObject({ type: "sync_run.failed", workspace_id: workspaceId, data: { sync_run_id: run.id, status: "failed", outcome: "failed" } });
});

it("a test run sends neither", async () => {
  const run = await prisma().syncRun.create({ data: { workspaceId, syncId, status: "in_progress", syncRunType: "test", startedAt: new Date() } });
  expect(await setRunStatus(pgPool(), run.id, "failed", { error: "boom", finished: true })).toBe(true);
  expect(await queued(run.id)).toEqual({ deliveries: 0, alertJobs: 0 });
});

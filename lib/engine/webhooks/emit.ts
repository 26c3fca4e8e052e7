// Run lifecycle events → webhook deliveries. run-store.ts calls emitRunEvent once a run's status has
// changed; it finds the workspace's enabled subscriptions that want the event and the run's sync and
// queues a delivery for each. Never throws: a webhook problem must not fail or slow a run beyond one
// query (the usual case, no subscription, is that query alone).
import "server-only";
import { prisma } from "@/lib/db/client";
import { db } from "@/lib/db/kysely";
import type { SyncRunStatus } from "@/lib/generated/prisma/enums";
import { logger } from "@/lib/logger";
import { runEventFor } from "@/lib/sync-config/webhook-events";
import { createDeliveries } from "./deliveries";
import { runEventPayload } from "./payload";

/**
 * Queues the event `status` sends (if any) to the subscriptions that want it. Only general runs
 * send events: a test run is someone trying one row in the console.
 */
export async function emitRunEvent(runId: number, status: SyncRunStatus): Promise<void> {
  const type = runEventFor(status);
  if (!type) return;
  try {
    const rows = await db()
      .selectFrom("sync_runs as r")
      .innerJoin("webhook_subscriptions as s", "s.workspace_id", "r.workspace_id")
      .select("s.id")
      .where("r.id", "=", runId)
      .where("r.sync_run_type", "=", "general")
      .where("s.enabled", "=", true)
      .where((eb) => eb(eb.val<string>(type), "=", eb.fn.any("s.events")))
      .where((eb) => eb.or([eb(eb.fn("cardinality", ["s.sync_ids"]), "=", 0), eb("r.sync_id", "=", eb.fn.any("s.sync_ids"))]))
      .orderBy("s.id")
      .execute();
    if (rows.length === 0) return;
    const run = await prisma().syncRun.findUnique({ where: { id: runId } });
    if (!run) return;
    // The status that sent the event, even when the change is not committed yet (the reaper's transaction).
    const payload = runEventPayload(type, { ...run, status });
    await createDeliveries({ workspaceId: run.workspaceId, subscriptionIds: rows.map((r) => r.id), event: payload, payload });
  } catch (err) {
    logger.warn({ runId, status, err: (err as Error).message }, "could not queue run webhooks");
  }
}

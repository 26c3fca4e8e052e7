// Run lifecycle events → webhook deliveries. run-store.ts calls emitRunEvent once a run's status has
// changed; it finds the workspace's enabled subscriptions that want the event and the run's sync and
// queues a delivery for each. Never throws: a webhook problem must not fail or slow a run beyond one
// query (the usual case, no subscription, is that query alone).
import "server-only";
import { pgPool, prisma } from "@/lib/db/client";
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
    const { rows } = await pgPool().query<{ id: number }>(
      `SELECT s.id FROM sync_runs r JOIN webhook_subscriptions s ON s.workspace_id = r.workspace_id
        WHERE r.id = $1 AND r.sync_run_type = 'general' AND s.enabled AND $2 = ANY(s.events)
          AND (cardinality(s.sync_ids) = 0 OR r.sync_id = ANY(s.sync_ids))
        ORDER BY s.id`,
      [runId, type],
    );
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

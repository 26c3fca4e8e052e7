// Run events → webhook deliveries: the subscriber of the run event bus (../events.ts) that finds the
// workspace's enabled subscriptions wanting the event and the run's sync, and records a pending
// delivery for each inside the status change's transaction; their jobs are sent once it commits
// (a job lost in between is re-sent by the worker's sweep of overdue deliveries, worker.ts). The usual
// case, no subscription, costs one query.
import "server-only";
import { db, viaClient } from "@/lib/db/kysely";
import { runEventFor } from "@/lib/sync-rules/webhook-events";
import type { EventContext, RunEvent } from "../events";
import { runEventPayload } from "./payload";
import { enqueueDeliveries } from "./queue";

/**
 * Records the deliveries the event of `event.status` sends (if any). Only general runs send events:
 * a test run is someone trying one row in the console.
 */
export async function webhooksOnRunEvent(event: RunEvent, { client, afterCommit }: EventContext): Promise<void> {
  const type = runEventFor(event.status);
  if (!type || event.runType !== "general") return;
  const subscriptions = await viaClient(
    client,
    db()
      .selectFrom("webhook_subscriptions as s")
      .select("s.id")
      .where("s.workspace_id", "=", event.workspaceId)
      .where("s.enabled", "=", true)
      .where((eb) => eb(eb.val<string>(type), "=", eb.fn.any("s.events")))
      .where((eb) => eb.or([eb(eb.fn("cardinality", ["s.sync_ids"]), "=", 0), eb(eb.val(event.syncId), "=", eb.fn.any("s.sync_ids"))]))
      .orderBy("s.id"),
  );
  if (subscriptions.length === 0) return;
  const payload = runEventPayload(type, event);
  const rows = await viaClient(
    client,
    db()
      .insertInto("webhook_deliveries")
      .values(
        subscriptions.map((s) => ({
          workspace_id: event.workspaceId,
          subscription_id: s.id,
          event_id: payload.id,
          event_type: payload.type,
          payload: JSON.stringify(payload),
          next_attempt_at: new Date(),
          updated_at: new Date(),
        })),
      )
      .returning("id"),
  );
  await afterCommit(() => enqueueDeliveries(rows.map((r) => ({ deliveryId: r.id, attempt: 1 }))));
}

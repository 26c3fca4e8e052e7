// Creating webhook deliveries by hand: one row per subscription for an event, then a job each, for the
// test button's ping and redelivery (lib/services/notifications/webhook-subscriptions.ts). Run events record theirs
// inside the status change's transaction instead (emit.ts).
import "server-only";
import { prisma } from "@/lib/db/client";
import { toJsonColumn } from "@/lib/db/json";
import type { WebhookDelivery } from "@/lib/generated/prisma/client";
import { enqueueDeliveries } from "./queue";

export interface NewDeliveries {
  workspaceId: number;
  subscriptionIds: number[];
  /** The event's id and type, and the body sent (a WebhookEnvelope, or a stored one for a redelivery). */
  event: { id: string; type: string };
  payload: object;
  /** Sent by a person (ping, redeliver): attempted even while the subscription is disabled. */
  manual?: boolean;
  redeliveryOf?: number;
}

/** Records one pending delivery per subscription and queues its first attempt. */
export async function createDeliveries(input: NewDeliveries): Promise<WebhookDelivery[]> {
  if (input.subscriptionIds.length === 0) return [];
  const rows = await prisma().webhookDelivery.createManyAndReturn({
    data: input.subscriptionIds.map((subscriptionId) => ({
      workspaceId: input.workspaceId,
      subscriptionId,
      eventId: input.event.id,
      eventType: input.event.type,
      payload: toJsonColumn(input.payload),
      manual: input.manual ?? false,
      redeliveryOf: input.redeliveryOf ?? null,
      nextAttemptAt: new Date(),
    })),
  });
  await enqueueDeliveries(rows.map((r) => ({ deliveryId: r.id, attempt: 1 })));
  return rows;
}

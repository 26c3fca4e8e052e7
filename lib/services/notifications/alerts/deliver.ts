// Delivering one alert event to each of its channels (a job on the alert queue, never in a request).
// Each channel's outcome is written on the event as it happens; a retry of the job sends only to the
// channels still pending or failed, so a channel that got the message does not get it twice.
import "server-only";
import { prisma } from "@/lib/db/client";
import type { Prisma } from "@/lib/generated/prisma/client";
import { alertDeliverySchema, type AlertDelivery } from "@/lib/serializers/alerts.schema";
import { eventMessage } from "./messages";
import { sendToChannel } from "./senders";

/** The stored deliveries of an event, as the serializer lists them. */
export function deliveriesOf(value: Prisma.JsonValue): AlertDelivery[] {
  const parsed = alertDeliverySchema.array().safeParse(value);
  return parsed.success ? parsed.data : [];
}

/** Sends the event to its channels not yet reached. Returns the deliveries that failed. */
export async function deliverAlertEvent(eventId: number): Promise<AlertDelivery[]> {
  const event = await prisma().alertEvent.findUnique({ where: { id: eventId } });
  if (!event) return [];
  const deliveries = deliveriesOf(event.deliveries);
  const message = eventMessage(event);
  for (const [i, delivery] of deliveries.entries()) {
    // Only pending and failed deliveries are (re)tried: a suppressed or unconfirmed one is final, so
    // a retry cannot pass the hourly cap later or mail an address that confirmed after the event.
    if (delivery.status !== "pending" && delivery.status !== "failed") continue;
    const channel = await prisma().alertChannel.findFirst({ where: { id: delivery.channel_id, workspaceId: event.workspaceId } });
    const result = channel ? await sendToChannel(channel, message) : { status: "failed" as const, error: "The channel was deleted." };
    deliveries[i] = { ...delivery, status: result.status, error: result.error, recipients: result.recipients ?? null, at: new Date().toISOString() };
    await prisma().alertEvent.update({ where: { id: eventId }, data: { deliveries: deliveries as Prisma.InputJsonValue } });
  }
  return deliveries.filter((d) => d.status === "failed");
}

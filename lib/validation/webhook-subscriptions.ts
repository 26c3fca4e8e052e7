// Request shapes of the webhook subscription endpoints (shared by the console form and the OpenAPI
// document). Whether the URL may be reached is the network policy's call (the service checks it).
import { z } from "zod";
import { WEBHOOK_EVENTS } from "@/lib/sync-rules/webhook-events";
import { intId, idParam } from "./ids";

/**
 * Subscriptions one workspace may have. Each run event is sent to every one of them (and retried for
 * hours while a receiver fails), so without a cap one member could make the server flood a target.
 */
export const MAX_WEBHOOK_SUBSCRIPTIONS = 25;

const url = z
  .string({ error: "is required" })
  .trim()
  .min(1, "must not be empty")
  .max(2000, "must be at most 2000 characters")
  .refine((v) => URL.canParse(v) && /^https?:$/.test(new URL(v).protocol), "must be an http or https URL, e.g. https://example.com/hooks/datasync")
  .describe("Where events are POSTed: an http(s) URL the server's outbound network policy allows.");

const events = z
  .array(z.enum(WEBHOOK_EVENTS, { error: `must be one of ${WEBHOOK_EVENTS.join(", ")}` }), { error: "must be a list of event types" })
  .min(1, "must name at least one event")
  .refine((list) => new Set(list).size === list.length, "must not name an event twice")
  .describe(`The events to send: ${WEBHOOK_EVENTS.join(", ")}.`);

const syncIds = z
  .array(intId(undefined, "a sync id"), { error: "must be a list of sync ids, or null for every sync" })
  .min(1, "must name at least one sync; send null for every sync")
  .max(100, "must name at most 100 syncs")
  .nullish()
  .describe("Only runs of these syncs (of this workspace); null or absent: every sync, also those created later.");

const enabled = z.boolean({ error: "must be true or false" }).describe("Whether events are sent; a disabled subscription keeps its settings.");

export const createWebhookSubscriptionSchema = z.object({
  webhook_subscription: z.object(
    { url, events, sync_ids: syncIds, enabled: enabled.optional().default(true) },
    { error: "is required: send {webhook_subscription: {url, events, sync_ids?, enabled?}}" },
  ),
});
export type CreateWebhookSubscriptionInput = z.infer<typeof createWebhookSubscriptionSchema>["webhook_subscription"];

export const updateWebhookSubscriptionSchema = z.object({
  webhook_subscription: z.object(
    { url: url.optional(), events: events.optional(), sync_ids: syncIds, enabled: enabled.optional() },
    { error: "is required: send {webhook_subscription: {...fields to change}}" },
  ),
});
export type UpdateWebhookSubscriptionInput = z.infer<typeof updateWebhookSubscriptionSchema>["webhook_subscription"];

export const webhookDeliveryParams = z.object({ id: idParam, delivery_id: idParam });

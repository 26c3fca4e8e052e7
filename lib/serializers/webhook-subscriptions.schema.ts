// Webhook subscription and delivery resources, as ./webhook-subscriptions.ts builds them.
import { z } from "zod";
import { WebhookDeliveryStatus } from "@/lib/generated/prisma/enums";
import { webhookPayloadSchema } from "@/lib/validation/webhook-payload";
import { dateTime, resourceSchema } from "./resource";

export const webhookSubscriptionAttributesSchema = z.strictObject({
  url: z.string(),
  events: z.array(z.string()).describe("The event types sent."),
  sync_ids: z.array(z.number().int()).nullable().describe("Only runs of these syncs; null: every sync."),
  enabled: z.boolean(),
  disabled_reason: z.string().nullable().describe("Why the server disabled it (the receiver answered 410 Gone); null otherwise."),
  secret: z
    .string()
    .describe("The signing secret: in full only in the answers of create and rotate_secret, masked (whsec_…, last four characters) everywhere else."),
  workspace_id: z.number().int(),
  created_at: dateTime(),
  updated_at: dateTime(),
});
export type WebhookSubscriptionAttributes = z.infer<typeof webhookSubscriptionAttributesSchema>;
export const webhookSubscriptionSchema = resourceSchema("webhook_subscriptions", webhookSubscriptionAttributesSchema).meta({
  id: "WebhookSubscription",
});
export type WebhookSubscriptionResource = z.infer<typeof webhookSubscriptionSchema>;

export const webhookAttemptSchema = z.strictObject({
  attempt: z.number().int(),
  status_code: z.number().int().nullable().describe("The receiver's HTTP status; null when no answer came."),
  duration_ms: z.number().int(),
  error: z.string().nullable().describe("Why the attempt failed (status and start of the body, or the network error); null on success."),
  next_retry_at: dateTime().nullable().describe("When the next attempt is due; null when this was the last."),
  created_at: dateTime(),
});

export const webhookDeliveryAttributesSchema = z.strictObject({
  subscription_id: z.number().int(),
  event_id: z.string().describe("The event's id, also in the Datasync-Event-Id header; the same in redeliveries."),
  event_type: z.string(),
  status: z.enum(WebhookDeliveryStatus).describe("pending (an attempt is due), succeeded (2xx) or failed (given up, refused by the network policy, or 410)."),
  attempts: z.number().int(),
  next_attempt_at: dateTime().nullable(),
  last_status_code: z.number().int().nullable(),
  last_error: z.string().nullable(),
  redelivery_of: z.number().int().nullable().describe("The delivery this one sends again; null for an original."),
  payload: webhookPayloadSchema,
  attempt_log: z.array(webhookAttemptSchema).describe("Every attempt, oldest first."),
  created_at: dateTime(),
  updated_at: dateTime(),
});
export type WebhookDeliveryAttributes = z.infer<typeof webhookDeliveryAttributesSchema>;
export const webhookDeliverySchema = resourceSchema("webhook_deliveries", webhookDeliveryAttributesSchema).meta({ id: "WebhookDelivery" });
export type WebhookDeliveryResource = z.infer<typeof webhookDeliverySchema>;

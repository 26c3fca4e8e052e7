// Webhook subscriptions (the secret masked unless just made) and their deliveries with the attempt log.
import type { WebhookDelivery, WebhookDeliveryAttempt, WebhookSubscription } from "@/lib/generated/prisma/client";
import { parseWebhookPayload } from "@/lib/validation/webhook-payload";
import { iso, resource } from "./resource";
import type {
  WebhookDeliveryAttributes,
  WebhookDeliveryResource,
  WebhookSubscriptionAttributes,
  WebhookSubscriptionResource,
} from "./webhook-subscriptions.schema";

/** What a listing shows of a secret: enough to tell two apart, nothing to sign with. */
export const maskedSecret = (last4: string): string => `whsec_…${last4}`;

/** `secret`: the plain secret, only in the answers of create and rotate_secret. */
export const serializeWebhookSubscription = (s: WebhookSubscription, secret?: string): WebhookSubscriptionResource =>
  resource(s.id, "webhook_subscriptions", {
    url: s.url,
    events: s.events,
    sync_ids: s.syncIds.length > 0 ? s.syncIds : null,
    enabled: s.enabled,
    disabled_reason: s.disabledReason,
    secret: secret ?? maskedSecret(s.secretLast4),
    workspace_id: s.workspaceId,
    created_at: iso(s.createdAt),
    updated_at: iso(s.updatedAt),
  } satisfies WebhookSubscriptionAttributes);

export const serializeWebhookDelivery = (d: WebhookDelivery & { attemptLog: WebhookDeliveryAttempt[] }): WebhookDeliveryResource =>
  resource(d.id, "webhook_deliveries", {
    subscription_id: d.subscriptionId,
    event_id: d.eventId,
    event_type: d.eventType,
    status: d.status,
    attempts: d.attempts,
    next_attempt_at: iso(d.nextAttemptAt),
    last_status_code: d.lastStatusCode,
    last_error: d.lastError,
    redelivery_of: d.redeliveryOf,
    payload: parseWebhookPayload(d.payload, d.id),
    attempt_log: d.attemptLog.map((a) => ({
      attempt: a.attempt,
      status_code: a.statusCode,
      duration_ms: a.durationMs,
      error: a.error,
      next_retry_at: iso(a.nextRetryAt),
      created_at: iso(a.createdAt),
    })),
    created_at: iso(d.createdAt),
    updated_at: iso(d.updatedAt),
  } satisfies WebhookDeliveryAttributes);

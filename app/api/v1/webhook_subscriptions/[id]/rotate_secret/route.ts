// POST /api/v1/webhook_subscriptions/{id}/rotate_secret - a new signing secret, shown once.
import { webhooks } from "@/lib/contract/webhooks";
import { route } from "@/lib/http/handler";
import { serializeWebhookSubscription } from "@/lib/serializers/webhook-subscriptions";
import { rotateWebhookSecret } from "@/lib/services/notifications/webhook-subscriptions";

export const POST = route(webhooks.rotateWebhookSecret, async ({ auth, params }) => {
  const { row, secret } = await rotateWebhookSecret(auth, params.id);
  return { data: serializeWebhookSubscription(row, secret) };
});

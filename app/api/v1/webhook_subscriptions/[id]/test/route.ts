// POST /api/v1/webhook_subscriptions/{id}/test - queue a ping event to the subscription's URL.
import { webhooks } from "@/lib/contract/webhooks";
import { route } from "@/lib/http/handler";
import { serializeWebhookDelivery } from "@/lib/serializers/webhook-subscriptions";
import { testWebhookSubscription } from "@/lib/services/notifications/webhook-subscriptions";

export const POST = route(webhooks.testWebhookSubscription, async ({ auth, params }) => ({
  data: serializeWebhookDelivery(await testWebhookSubscription(auth, params.id)),
}));

// POST /api/v1/webhook_subscriptions/{id}/deliveries/{delivery_id}/redeliver - send a delivery's event again.
import { webhooks } from "@/lib/contract/webhooks";
import { route } from "@/lib/http/handler";
import { serializeWebhookDelivery } from "@/lib/serializers/webhook-subscriptions";
import { redeliverWebhookDelivery } from "@/lib/services/notifications/webhook-subscriptions";

export const POST = route(webhooks.redeliverWebhookDelivery, async ({ auth, params }) => ({
  data: serializeWebhookDelivery(await redeliverWebhookDelivery(auth, params.id, params.delivery_id)),
}));

// GET/PUT/DELETE /api/v1/webhook_subscriptions/{id} - show, change or delete a webhook subscription.
import { webhooks } from "@/lib/contract/webhooks";
import { route } from "@/lib/http/handler";
import { serializeWebhookSubscription } from "@/lib/serializers/webhook-subscriptions";
import {
  deleteWebhookSubscription,
  findWebhookSubscription,
  updateWebhookSubscription,
} from "@/lib/services/notifications/webhook-subscriptions";

export const GET = route(webhooks.getWebhookSubscription, async ({ auth, params }) => ({
  data: serializeWebhookSubscription(await findWebhookSubscription(auth, params.id)),
}));

export const PUT = route(webhooks.updateWebhookSubscription, async ({ auth, params, body }) => ({
  data: serializeWebhookSubscription(await updateWebhookSubscription(auth, params.id, body.webhook_subscription)),
}));

export const DELETE = route(webhooks.deleteWebhookSubscription, async ({ auth, params }) => {
  await deleteWebhookSubscription(auth, params.id);
});

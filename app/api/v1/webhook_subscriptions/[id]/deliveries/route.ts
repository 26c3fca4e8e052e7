// GET /api/v1/webhook_subscriptions/{id}/deliveries - the subscription's delivery log, with attempts.
import { webhooks } from "@/lib/contract/webhooks";
import { route } from "@/lib/http/handler";
import { pageLinks } from "@/lib/http/pagination";
import { serializeWebhookDelivery } from "@/lib/serializers/webhook-subscriptions";
import { listWebhookDeliveries } from "@/lib/services/notifications/webhook-subscriptions";

export const GET = route(webhooks.listWebhookDeliveries, async ({ auth, url, params, query: { page } }) => {
  const { rows, total } = await listWebhookDeliveries(auth, params.id, page);
  return { data: rows.map(serializeWebhookDelivery), ...pageLinks(url, page, total) };
});

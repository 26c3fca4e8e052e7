// GET/POST /api/v1/webhook_subscriptions - list subscriptions (secrets masked) and create one (secret shown once).
import { webhooks } from "@/lib/contract/webhooks";
import { route } from "@/lib/http/handler";
import { pageLinks } from "@/lib/http/pagination";
import { serializeWebhookSubscription } from "@/lib/serializers/webhook-subscriptions";
import { createWebhookSubscription, listWebhookSubscriptions } from "@/lib/services/notifications/webhook-subscriptions";

export const GET = route(webhooks.listWebhookSubscriptions, async ({ auth, url, query: { page } }) => {
  const { rows, total } = await listWebhookSubscriptions(auth, page);
  return { data: rows.map((s) => serializeWebhookSubscription(s)), ...pageLinks(url, page, total) };
});

export const POST = route(webhooks.createWebhookSubscription, async ({ auth, body }) => {
  const { row, secret } = await createWebhookSubscription(auth, body.webhook_subscription);
  return { data: serializeWebhookSubscription(row, secret) };
});

// Webhook subscriptions: run lifecycle events POSTed, signed, to a URL of the workspace's choosing
// (docs/webhooks.md), their delivery log, redelivery and the test ping.
import { z } from "zod";
import { listSchema, pageQuery } from "@/lib/http/pagination";
import { webhookDeliverySchema, webhookSubscriptionSchema } from "@/lib/serializers/webhook-subscriptions.schema";
import { idParam } from "@/lib/validation/ids";
import {
  MAX_WEBHOOK_SUBSCRIPTIONS,
  createWebhookSubscriptionSchema,
  updateWebhookSubscriptionSchema,
  webhookDeliveryParams,
} from "@/lib/validation/webhook-subscriptions";
import { operation } from "./operation";

const byId = z.object({ id: idParam });
const one = z.strictObject({ data: webhookSubscriptionSchema });
const oneDelivery = z.strictObject({ data: webhookDeliverySchema });
const tag = "Webhooks" as const;
const POLICY_NOTE = "422 when the URL is not http(s) or the outbound network policy refuses its host (metadata addresses always; private ones unless the operator allows them).";

export const webhooks = {
  listWebhookSubscriptions: operation({
    operationId: "listWebhookSubscriptions",
    method: "get",
    path: "/api/v1/webhook_subscriptions",
    tag,
    summary: "Webhook subscriptions of the workspace, newest first (secrets masked)",
    permission: ["webhook_subscription", "read"],
    query: pageQuery,
    status: 200,
    response: listSchema(webhookSubscriptionSchema),
  }),
  createWebhookSubscription: operation({
    operationId: "createWebhookSubscription",
    method: "post",
    path: "/api/v1/webhook_subscriptions",
    tag,
    summary: "Subscribe a URL to run events; the answer holds the signing secret (shown once)",
    permission: ["webhook_subscription", "create"],
    body: createWebhookSubscriptionSchema,
    status: 201,
    response: one,
    notes: `The secret is never shown again (rotate it to get a new one). ${POLICY_NOTE} 422 for a sync id not in this workspace. 409 when the workspace already has ${MAX_WEBHOOK_SUBSCRIPTIONS} subscriptions (each run event goes to every one).`,
    errors: [409],
  }),
  getWebhookSubscription: operation({
    operationId: "getWebhookSubscription",
    method: "get",
    path: "/api/v1/webhook_subscriptions/{id}",
    tag,
    summary: "Show a webhook subscription (secret masked)",
    permission: ["webhook_subscription", "read"],
    params: byId,
    status: 200,
    response: one,
  }),
  updateWebhookSubscription: operation({
    operationId: "updateWebhookSubscription",
    method: "put",
    path: "/api/v1/webhook_subscriptions/{id}",
    tag,
    summary: "Change a webhook subscription's URL, events, syncs or enabled flag",
    permission: ["webhook_subscription", "update"],
    params: byId,
    body: updateWebhookSubscriptionSchema,
    status: 200,
    response: one,
    notes: `Fields left out stay as they are; sync_ids null means every sync. Enabling clears disabled_reason. ${POLICY_NOTE}`,
  }),
  deleteWebhookSubscription: operation({
    operationId: "deleteWebhookSubscription",
    method: "delete",
    path: "/api/v1/webhook_subscriptions/{id}",
    tag,
    summary: "Delete a webhook subscription and its delivery log",
    permission: ["webhook_subscription", "delete"],
    params: byId,
    status: 204,
  }),
  rotateWebhookSecret: operation({
    operationId: "rotateWebhookSecret",
    method: "post",
    path: "/api/v1/webhook_subscriptions/{id}/rotate_secret",
    tag,
    summary: "Replace the signing secret; the answer holds the new one (shown once)",
    permission: ["webhook_subscription", "update"],
    params: byId,
    status: 200,
    response: one,
    notes: "The old secret stops signing at once, also for attempts already queued.",
  }),
  testWebhookSubscription: operation({
    operationId: "testWebhookSubscription",
    method: "post",
    path: "/api/v1/webhook_subscriptions/{id}/test",
    tag,
    summary: "Queue a ping event to the subscription's URL",
    permission: ["webhook_subscription", "update"],
    params: byId,
    status: 201,
    response: oneDelivery,
    notes: "Answers the pending delivery; its attempts appear in the delivery log. Sent also while the subscription is disabled.",
  }),
  listWebhookDeliveries: operation({
    operationId: "listWebhookDeliveries",
    method: "get",
    path: "/api/v1/webhook_subscriptions/{id}/deliveries",
    tag,
    summary: "The delivery log of a subscription, newest first, each delivery with its attempts",
    permission: ["webhook_subscription", "read"],
    params: byId,
    query: pageQuery,
    status: 200,
    response: listSchema(webhookDeliverySchema),
  }),
  redeliverWebhookDelivery: operation({
    operationId: "redeliverWebhookDelivery",
    method: "post",
    path: "/api/v1/webhook_subscriptions/{id}/deliveries/{delivery_id}/redeliver",
    tag,
    summary: "Send a delivery's event again (same event id and body) as a new delivery",
    permission: ["webhook_subscription", "update"],
    params: webhookDeliveryParams,
    status: 201,
    response: oneDelivery,
    errors: [429],
    notes:
      "Sent also while the subscription is disabled. 429 with Retry-After past WEBHOOK_MAX_REDELIVERIES_PER_SUBSCRIPTION (or _PER_WORKSPACE) in WEBHOOK_REDELIVERY_WINDOW_SECONDS.",
  }),
};

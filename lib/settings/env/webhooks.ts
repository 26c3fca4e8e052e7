// Run lifecycle webhooks (docs/webhooks.md). Part of envSchema (lib/settings/env.ts), in its order: the
// README lists them so.
import { integer, decimal } from "./kinds";

export const webhookVariables = {
  // Run lifecycle webhooks (docs/webhooks.md)
  WEBHOOK_RETRY_BASE_SECONDS: decimal(
    0,
    30,
    "wait before the second attempt of a webhook delivery the receiver did not accept; each later wait doubles",
    true,
  ),
  WEBHOOK_RETRY_MAX_HOURS: decimal(
    0,
    24,
    "a webhook delivery not accepted this many hours after its event is given up (no attempt is scheduled past it)",
    true,
  ),
  WEBHOOK_TIMEOUT_SECONDS: decimal(0, 10, "longest one webhook attempt may wait for the receiver's answer", true),
  WEBHOOK_MAX_REDELIVERIES_PER_SUBSCRIPTION: integer(
    1,
    10,
    "redeliveries (`…/deliveries/{id}/redeliver`) of one webhook subscription per `WEBHOOK_REDELIVERY_WINDOW_SECONDS`; beyond it, 429 with `Retry-After`",
  ),
  WEBHOOK_MAX_REDELIVERIES_PER_WORKSPACE: integer(
    1,
    50,
    "redeliveries of all of one workspace's webhook subscriptions per `WEBHOOK_REDELIVERY_WINDOW_SECONDS`; beyond it, 429 with `Retry-After`",
  ),
  WEBHOOK_REDELIVERY_WINDOW_SECONDS: integer(1, 600, "the window the webhook redelivery limits count in"),
};

// The events a webhook subscription may receive (docs/webhooks.md), and which run status sends which.
// Browser-safe: the validation schemas, the console form and the engine share it.

export const WEBHOOK_EVENTS = ["sync_run.started", "sync_run.succeeded", "sync_run.failed", "sync_run.needs_approval"] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** Sent by the test button only; no subscription chooses it. */
export const PING_EVENT = "ping";

/**
 * The event a run's new status sends, if any: its first start, its end (a run canceled or given up
 * ends failed or canceled, both `sync_run.failed`, told apart by `status` and `outcome`), and a hold
 * for approval. Other statuses (querying, paused, queued again…) send nothing.
 */
export function runEventFor(status: string): WebhookEvent | undefined {
  switch (status) {
    case "started":
      return "sync_run.started";
    case "success":
      return "sync_run.succeeded";
    case "failed":
    case "canceled":
      return "sync_run.failed";
    case "needs_approval":
      return "sync_run.needs_approval";
    default:
      return undefined;
  }
}

/** The header names of a delivery (docs/webhooks.md). */
export const WEBHOOK_HEADERS = {
  signature: "Datasync-Signature",
  eventId: "Datasync-Event-Id",
  eventType: "Datasync-Event-Type",
  deliveryId: "Datasync-Delivery-Id",
} as const;

// What a webhook edit sends as its events. A subscription may carry events this console does not
// know (a newer server's): they are never dropped, and the events go only when the person changed them.
import { WEBHOOK_EVENTS, type WebhookEvent } from "@/lib/sync-rules/webhook-events";

export const isWebhookEvent = (e: string): e is WebhookEvent => (WEBHOOK_EVENTS as readonly string[]).includes(e);

/** The subscription's events split into those the form shows as checkboxes and the others. */
export function splitEvents(stored: readonly string[]): { known: WebhookEvent[]; other: string[] } {
  return { known: stored.filter(isWebhookEvent), other: stored.filter((e) => !isWebhookEvent(e)) };
}

/** `{events}` when the picked events differ from the stored known ones (the others kept), else `{}`. */
export function eventChanges(picked: readonly WebhookEvent[], stored: readonly string[]): { events?: WebhookEvent[] } {
  const { known, other } = splitEvents(stored);
  const changed = picked.length !== known.length || picked.some((e) => !known.includes(e));
  // The others are the server's own names, which it accepts back; this console's type cannot name them.
  return changed ? { events: [...picked, ...other] as WebhookEvent[] } : {};
}

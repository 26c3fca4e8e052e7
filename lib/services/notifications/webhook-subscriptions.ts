// Webhook subscriptions of a workspace (docs/webhooks.md): CRUD, secret rotation, the test ping, the
// delivery log and redelivery. The signing secret is generated here, stored encrypted, returned in
// full only by create and rotate_secret. The URL must pass the outbound network policy when saved
// (scheme, IP literals, and the addresses its name resolves to now); the delivery checks again at
// send time with the addresses it connects to. Every query is scoped by workspace: another
// workspace's subscription or delivery is a 404.
import "server-only";
import { parseWebhookPayload } from "@/lib/validation/webhook-payload";
import { assertHostAllowed, assertUrlAllowed } from "@/lib/net/policy";
import { encrypt } from "@/lib/crypto/encryption";
import { prisma } from "@/lib/db/client";
import { createDeliveries, newWebhookSecret, pingPayload } from "@/lib/engine";
import { env } from "@/lib/settings/env";
import { Conflict, NotFound, RateLimited, ValidationFailed } from "@/lib/errors";
import type { Page } from "@/lib/page";
import { MAX_WEBHOOK_SUBSCRIPTIONS, type CreateWebhookSubscriptionInput, type UpdateWebhookSubscriptionInput } from "@/lib/validation/webhook-subscriptions";
import { audit } from "../insights/audit";
import type { AuthContext } from "../accounts/auth-context";
import { giveBack, reserveInWindow } from "../accounts/login-throttle";
import { oneAtATime } from "@/lib/runtime/one-at-a-time";

/** The URL as the policy allows it, or a 422 on the url field saying why not. */
async function allowedUrl(url: string): Promise<string> {
  try {
    const parsed = assertUrlAllowed(url);
    await assertHostAllowed(parsed.hostname);
    return parsed.toString();
  } catch (err) {
    throw ValidationFailed.field("webhook_subscription.url", `is not allowed: ${(err as Error).message}`);
  }
}

/** The sync ids, every one a sync of the workspace (else a 422 naming them); [] for every sync. */
async function workspaceSyncIds(workspaceId: number, ids: number[] | null | undefined): Promise<number[]> {
  if (!ids) return [];
  const unique = [...new Set(ids)];
  const found = await prisma().sync.findMany({ where: { workspaceId, id: { in: unique } }, select: { id: true } });
  const missing = unique.filter((id) => !found.some((s) => s.id === id));
  if (missing.length > 0) {
    throw ValidationFailed.field("webhook_subscription.sync_ids", `names syncs that are not in this workspace: ${missing.join(", ")}`);
  }
  return unique.sort((a, b) => a - b);
}

const secretFields = () => {
  const secret = newWebhookSecret();
  return { secret, data: { secretEncrypted: encrypt(secret), secretLast4: secret.slice(-4) } };
};

export async function findWebhookSubscription(auth: Pick<AuthContext, "workspaceId">, id: number) {
  const row = await prisma().webhookSubscription.findFirst({ where: { id, workspaceId: auth.workspaceId } });
  if (!row) throw new NotFound(`Webhook subscription ${id} was not found.`);
  return row;
}

export async function listWebhookSubscriptions(auth: AuthContext, page: Page) {
  const where = { workspaceId: auth.workspaceId };
  const [rows, total] = await Promise.all([
    prisma().webhookSubscription.findMany({ where, orderBy: [{ createdAt: "desc" }, { id: "desc" }], skip: page.skip, take: page.take }),
    prisma().webhookSubscription.count({ where }),
  ]);
  return { rows, total };
}

/** 'WHSB': the advisory-lock namespace of subscription creates (the workspace id is the second half). */
const CREATE_NAMESPACE = 0x57485342;

export async function createWebhookSubscription(auth: AuthContext, input: CreateWebhookSubscriptionInput) {
  const url = await allowedUrl(input.url);
  const syncIds = await workspaceSyncIds(auth.workspaceId, input.sync_ids);
  const { secret, data } = secretFields();
  return oneAtATime(`webhook-creates:${auth.workspaceId}`, () =>
    prisma().$transaction(async (tx) => {
    // Counted under a per-workspace lock, so concurrent creates cannot pass the cap together.
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${CREATE_NAMESPACE}::int, ${auth.workspaceId}::int)`;
    if ((await tx.webhookSubscription.count({ where: { workspaceId: auth.workspaceId } })) >= MAX_WEBHOOK_SUBSCRIPTIONS) {
      throw new Conflict(`This workspace already has ${MAX_WEBHOOK_SUBSCRIPTIONS} webhook subscriptions, the most it may have; delete one, or widen one's events or syncs.`);
    }
    const row = await tx.webhookSubscription.create({
      data: { workspaceId: auth.workspaceId, url, events: input.events, syncIds, enabled: input.enabled, ...data },
    });
    await audit(auth, "create", "webhook_subscription", row.id, { url, events: row.events, sync_ids: syncIds, enabled: row.enabled }, tx);
    return { row, secret };
    }),
  );
}

export async function updateWebhookSubscription(auth: AuthContext, id: number, input: UpdateWebhookSubscriptionInput) {
  await findWebhookSubscription(auth, id);
  const url = input.url === undefined ? undefined : await allowedUrl(input.url);
  const syncIds = input.sync_ids === undefined ? undefined : await workspaceSyncIds(auth.workspaceId, input.sync_ids);
  return prisma().$transaction(async (tx) => {
    const row = await tx.webhookSubscription.update({
      where: { id },
      data: {
        url,
        events: input.events,
        syncIds,
        enabled: input.enabled,
        // Enabling again clears why the server had disabled it.
        ...(input.enabled === true ? { disabledReason: null } : {}),
      },
    });
    const changed = Object.fromEntries(Object.entries({ url, events: input.events, sync_ids: syncIds, enabled: input.enabled }).filter(([, v]) => v !== undefined));
    await audit(auth, "update", "webhook_subscription", id, changed, tx);
    return row;
  });
}

export async function deleteWebhookSubscription(auth: AuthContext, id: number): Promise<void> {
  const row = await findWebhookSubscription(auth, id);
  await prisma().$transaction(async (tx) => {
    await tx.webhookSubscription.delete({ where: { id } });
    await audit(auth, "delete", "webhook_subscription", id, { url: row.url }, tx);
  });
}

/** A new secret; the old one stops signing at once (receivers must take the new one). */
export async function rotateWebhookSecret(auth: AuthContext, id: number) {
  await findWebhookSubscription(auth, id);
  const { secret, data } = secretFields();
  return prisma().$transaction(async (tx) => {
    const row = await tx.webhookSubscription.update({ where: { id }, data });
    await audit(auth, "rotate", "webhook_subscription", id, { secret: "rotated" }, tx);
    return { row, secret };
  });
}

const withAttempts = { attemptLog: { orderBy: { attempt: "asc" } } } as const;

/** Queues a ping to the subscription (also when disabled); answers the pending delivery. */
export async function testWebhookSubscription(auth: AuthContext, id: number) {
  const subscription = await findWebhookSubscription(auth, id);
  const payload = pingPayload(auth.workspaceId, subscription.id);
  const [delivery] = await createDeliveries({
    workspaceId: auth.workspaceId,
    subscriptionIds: [subscription.id],
    event: payload,
    payload,
    manual: true,
  });
  await audit(auth, "test", "webhook_subscription", id, { delivery_id: delivery.id });
  return { ...delivery, attemptLog: [] };
}

/** The subscription's deliveries, newest first, each with its attempts. */
export async function listWebhookDeliveries(auth: AuthContext, id: number, page: Page) {
  await findWebhookSubscription(auth, id);
  const where = { subscriptionId: id, workspaceId: auth.workspaceId };
  const [rows, total] = await Promise.all([
    prisma().webhookDelivery.findMany({
      where,
      include: withAttempts,
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      skip: page.skip,
      take: page.take,
    }),
    prisma().webhookDelivery.count({ where }),
  ]);
  return { rows, total };
}

/**
 * Counts one redelivery against the subscription's and the workspace's limits, or throws 429 with
 * Retry-After. A redelivery is a request a person aims at a URL of their choosing (pings are not
 * counted: they are the test button, audited alike); without a limit, a script could make the
 * workers send a stored event to that URL as fast as it can call this endpoint.
 */
async function reserveRedelivery(workspaceId: number, subscriptionId: number): Promise<void> {
  const window = env.WEBHOOK_REDELIVERY_WINDOW_SECONDS;
  const subscriptionKey = `webhook-redeliver:${subscriptionId}`;
  let wait = await reserveInWindow(subscriptionKey, env.WEBHOOK_MAX_REDELIVERIES_PER_SUBSCRIPTION, window);
  let limit = `${env.WEBHOOK_MAX_REDELIVERIES_PER_SUBSCRIPTION} redeliveries of a subscription`;
  if (wait === null) {
    wait = await reserveInWindow(`webhook-redeliver-ws:${workspaceId}`, env.WEBHOOK_MAX_REDELIVERIES_PER_WORKSPACE, window);
    limit = `${env.WEBHOOK_MAX_REDELIVERIES_PER_WORKSPACE} redeliveries in a workspace`;
    if (wait !== null) await giveBack(subscriptionKey);
  }
  if (wait === null) return;
  const seconds = Math.max(1, wait);
  throw new RateLimited(
    `Too many redeliveries: at most ${limit} per ${window} seconds (WEBHOOK_REDELIVERY_WINDOW_SECONDS). Try again in ${seconds} second${seconds === 1 ? "" : "s"}.`,
    { headers: { "Retry-After": String(seconds) } },
  );
}

/** Sends a delivery's event again, as a new delivery with the same event id and body; rate-limited. */
export async function redeliverWebhookDelivery(auth: AuthContext, id: number, deliveryId: number) {
  await findWebhookSubscription(auth, id);
  const original = await prisma().webhookDelivery.findFirst({ where: { id: deliveryId, subscriptionId: id, workspaceId: auth.workspaceId } });
  if (!original) throw new NotFound(`Delivery ${deliveryId} of webhook subscription ${id} was not found.`);
  const payload = parseWebhookPayload(original.payload, original.id);
  await reserveRedelivery(auth.workspaceId, id);
  const [delivery] = await createDeliveries({
    workspaceId: auth.workspaceId,
    subscriptionIds: [id],
    event: { id: original.eventId, type: original.eventType },
    payload,
    manual: true,
    redeliveryOf: original.id,
  });
  await audit(auth, "redeliver", "webhook_subscription", id, { delivery_id: original.id, new_delivery_id: delivery.id });
  return { ...delivery, attemptLog: [] };
}

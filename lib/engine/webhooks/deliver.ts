// One attempt of a webhook delivery (a job of the webhook queue): sign the stored payload, POST it to
// the subscription's URL through the outbound guard, log the attempt, and decide what comes next.
// 2xx: succeeded. 410 Gone: the receiver wants no more, so the delivery fails and the subscription is
// disabled. A URL the network policy refuses (checked again here, with the addresses the connection
// resolves, so DNS rebinding after the save cannot get through): failed, no retry. Anything else
// (other statuses, timeouts, network errors): the next attempt after an exponential backoff
// (WEBHOOK_RETRY_BASE_SECONDS, doubling), until WEBHOOK_RETRY_MAX_HOURS after the event.
import "server-only";
import { env } from "@/lib/settings/env";
import { sendHttp, type HttpExchange } from "@/lib/net/http";
import { decrypt } from "@/lib/crypto/encryption";
import { pgPool, prisma } from "@/lib/db/client";
import { WEBHOOK_HEADERS } from "@/lib/sync-rules/webhook-events";
import { enqueueDeliveries } from "./queue";
import { signatureHeader } from "./signature";

export type AttemptResult = "succeeded" | "retry" | "failed" | "skipped";

/** Longest part of a receiver's answer kept in the attempt's error. */
const ERROR_SNIPPET = 300;

/** The wait after failed attempt `attempt` (1-based): base × 2^(attempt−1), at least what Retry-After asked. */
export function retryDelaySeconds(attempt: number, retryAfterSeconds?: number): number {
  const backoff = env.WEBHOOK_RETRY_BASE_SECONDS * 2 ** (attempt - 1);
  return Math.max(backoff, retryAfterSeconds ?? 0);
}

/** Takes attempt `attempt` of the delivery for this worker; false when it was made already or the delivery ended. */
async function claim(deliveryId: number, attempt: number): Promise<boolean> {
  const { rowCount } = await pgPool().query(
    `UPDATE webhook_deliveries SET attempts = $2, updated_at = now()
      WHERE id = $1 AND status = 'pending' AND attempts = $2 - 1`,
    [deliveryId, attempt],
  );
  return rowCount === 1;
}

function describe(exchange: HttpExchange): string | null {
  if (exchange.error) return exchange.error;
  if (exchange.status >= 200 && exchange.status < 300) return null;
  const snippet = exchange.bodyText.trim().slice(0, ERROR_SNIPPET);
  return `HTTP ${exchange.status}${snippet ? `: ${snippet}` : ""}`;
}

/** Makes attempt `attempt` of delivery `deliveryId` (a job of the webhook queue). */
export async function attemptDelivery(deliveryId: number, attempt: number): Promise<AttemptResult> {
  const delivery = await prisma().webhookDelivery.findUnique({ where: { id: deliveryId }, include: { subscription: true } });
  if (!delivery || delivery.status !== "pending" || delivery.attempts !== attempt - 1) return "skipped";
  const subscription = delivery.subscription;
  if (!subscription.enabled && !delivery.manual) {
    await prisma().webhookDelivery.updateMany({
      where: { id: deliveryId, status: "pending" },
      data: { status: "failed", nextAttemptAt: null, lastError: "The subscription is disabled; nothing was sent." },
    });
    return "failed";
  }
  if (!(await claim(deliveryId, attempt))) return "skipped";

  const body = JSON.stringify(delivery.payload);
  const timestamp = Math.floor(Date.now() / 1000);
  const started = performance.now();
  const exchange = await sendHttp({
    url: subscription.url,
    method: "POST",
    headers: {
      "content-type": "application/json",
      "user-agent": "Datasync-Webhooks/1",
      [WEBHOOK_HEADERS.signature]: signatureHeader(decrypt(subscription.secretEncrypted), body, timestamp),
      [WEBHOOK_HEADERS.eventId]: delivery.eventId,
      [WEBHOOK_HEADERS.eventType]: delivery.eventType,
      [WEBHOOK_HEADERS.deliveryId]: String(delivery.id),
    },
    body,
    timeoutMs: env.WEBHOOK_TIMEOUT_SECONDS * 1000,
    maxRedirects: 0,
    maxBodyBytes: 4096,
  });
  const durationMs = Math.round(performance.now() - started);
  const statusCode = exchange.response ? exchange.status : null;
  const error = describe(exchange);

  let result: AttemptResult;
  let nextAttemptAt: Date | null = null;
  let finalError = error;
  if (error === null) result = "succeeded";
  else if (exchange.failure === "blocked" || statusCode === 410) result = "failed";
  else {
    const next = new Date(Date.now() + retryDelaySeconds(attempt, exchange.retryAfterSeconds) * 1000);
    const deadline = delivery.createdAt.getTime() + env.WEBHOOK_RETRY_MAX_HOURS * 3600 * 1000;
    if (next.getTime() <= deadline) {
      result = "retry";
      nextAttemptAt = next;
    } else {
      result = "failed";
      finalError = `${error} (given up after ${attempt} attempts over ${env.WEBHOOK_RETRY_MAX_HOURS} h)`;
    }
  }

  await prisma().$transaction(async (tx) => {
    await tx.webhookDeliveryAttempt.create({ data: { deliveryId, attempt, statusCode, durationMs, error, nextRetryAt: nextAttemptAt } });
    await tx.webhookDelivery.update({
      where: { id: deliveryId },
      data: {
        status: result === "retry" ? "pending" : result === "succeeded" ? "succeeded" : "failed",
        nextAttemptAt,
        lastStatusCode: statusCode,
        lastError: finalError,
      },
    });
    if (statusCode === 410) {
      await tx.webhookSubscription.update({
        where: { id: subscription.id },
        data: { enabled: false, disabledReason: `Disabled at ${new Date().toISOString()}: the receiver answered 410 Gone.` },
      });
    }
  });
  if (result === "retry") await enqueueDeliveries([{ deliveryId, attempt: attempt + 1 }], nextAttemptAt);
  return result;
}

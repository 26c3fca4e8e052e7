// The signature of a webhook delivery: HMAC-SHA256 over `${timestamp}.${body}` with the
// subscription's secret, sent as `Datasync-Signature: t=<unix seconds>,v1=<hex>`. The timestamp is
// signed too, so a receiver that refuses old timestamps cannot be fed a recorded delivery again.
// docs/webhooks.md shows the receiver's side; verifySignature is the same recipe, used by the tests.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** A new signing secret: `whsec_` and 32 random bytes, hex. */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString("hex")}`;

export function signatureOf(secret: string, timestamp: number, body: string): string {
  return createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex");
}

/** The header value for `body` signed at `timestamp` (unix seconds). */
export function signatureHeader(secret: string, body: string, timestamp: number): string {
  return `t=${timestamp},v1=${signatureOf(secret, timestamp, body)}`;
}

/**
 * Whether `header` signs `body` with `secret` within `toleranceSeconds` of `now` (unix seconds):
 * any v1 entry may match (a receiver checks each), compared in constant time.
 */
export function verifySignature(header: string, body: string, secret: string, now: number, toleranceSeconds = 300): boolean {
  const parts = header.split(",").map((p) => p.trim().split("="));
  const t = Number(parts.find(([k]) => k === "t")?.[1]);
  if (!Number.isInteger(t) || Math.abs(now - t) > toleranceSeconds) return false;
  const expected = Buffer.from(signatureOf(secret, t, body), "hex");
  return parts
    .filter(([k, v]) => k === "v1" && /^[0-9a-f]{64}$/.test(v ?? ""))
    .some(([, v]) => timingSafeEqual(Buffer.from(v, "hex"), expected));
}

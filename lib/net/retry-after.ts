// Retry-After is the destination's word, and a tenant controls its destination: "Retry-After: 86400"
// must not park shared workers for a day. Every wait taken from it is capped here.
import { env } from "@/lib/settings/env";

/** A Retry-After in seconds, within [0, ENGINE_MAX_RETRY_AFTER_SECONDS]. */
export function capRetryAfter(seconds: number): number {
  return Math.min(Math.max(0, seconds), env.ENGINE_MAX_RETRY_AFTER_SECONDS);
}

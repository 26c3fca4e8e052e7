// Retry-After is the destination's word, and a tenant controls its destination: "Retry-After: 86400"
// must not park shared workers for a day. Every wait taken from it is capped here.

/** Default of ENGINE_MAX_RETRY_AFTER_SECONDS. */
export const DEFAULT_MAX_RETRY_AFTER_SECONDS = 300;

/** The longest Retry-After honoured, in seconds (ENGINE_MAX_RETRY_AFTER_SECONDS, default 300). */
export function maxRetryAfterSeconds(env: NodeJS.ProcessEnv = process.env): number {
  const value = Number(env.ENGINE_MAX_RETRY_AFTER_SECONDS);
  return env.ENGINE_MAX_RETRY_AFTER_SECONDS !== undefined && Number.isFinite(value) && value >= 0 ? value : DEFAULT_MAX_RETRY_AFTER_SECONDS;
}

/** A Retry-After in seconds, within [0, the configured maximum]. */
export function capRetryAfter(seconds: number, env: NodeJS.ProcessEnv = process.env): number {
  return Math.min(Math.max(0, seconds), maxRetryAfterSeconds(env));
}

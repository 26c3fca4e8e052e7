// Login throttling: failed sign-ins are counted per account (email) and per client address in a
// fixed window; over the limit, login answers 429 with Retry-After before the password is checked.
// Counters live in PostgreSQL (table login_throttles), not in process memory, so N web processes
// share one limit and a restart does not reset it. Only failures count; a success clears the
// account's counter (not the address's, so one good password does not unlock an address that
// is guessing at many accounts).
import { prisma } from "@/lib/db/client";
import { RateLimited } from "@/lib/errors";

export interface ThrottleLimits {
  perAccount: number;
  perIp: number;
  windowSeconds: number;
}

const envInt = (name: string, fallback: number): number => {
  const value = Number(process.env[name]);
  return Number.isSafeInteger(value) && value > 0 ? value : fallback;
};

/** LOGIN_MAX_FAILURES_PER_ACCOUNT (10), LOGIN_MAX_FAILURES_PER_IP (50), LOGIN_THROTTLE_WINDOW_SECONDS (900). */
export const throttleLimits = (): ThrottleLimits => ({
  perAccount: envInt("LOGIN_MAX_FAILURES_PER_ACCOUNT", 10),
  perIp: envInt("LOGIN_MAX_FAILURES_PER_IP", 50),
  windowSeconds: envInt("LOGIN_THROTTLE_WINDOW_SECONDS", 900),
});

export interface LoginClient {
  email: string;
  /** The client address, when known; without one only the account limit applies. */
  ip?: string | null;
}

const keysOf = (client: LoginClient) => ({
  account: `account:${client.email.trim().toLowerCase()}`,
  ip: client.ip ? `ip:${client.ip}` : null,
});

/** Throws 429 (with Retry-After in seconds) when the account or the address is over its limit. */
export async function assertLoginAllowed(client: LoginClient, limits = throttleLimits()): Promise<void> {
  const { account, ip } = keysOf(client);
  const rows = await prisma().$queryRaw<{ key: string; failures: number; retry_after: number }[]>`
    SELECT key, failures,
           CEIL(EXTRACT(EPOCH FROM (window_started_at + make_interval(secs => ${limits.windowSeconds}) - now())))::int AS retry_after
      FROM login_throttles
     WHERE key IN (${account}, ${ip ?? account})
       AND window_started_at > now() - make_interval(secs => ${limits.windowSeconds})`;
  let retryAfter = 0;
  for (const row of rows) {
    const limit = row.key === account ? limits.perAccount : limits.perIp;
    if (row.failures >= limit) retryAfter = Math.max(retryAfter, row.retry_after);
  }
  if (retryAfter > 0) {
    const minutes = Math.ceil(retryAfter / 60);
    throw new RateLimited(
      `Too many failed sign-in attempts. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`,
      { headers: { "Retry-After": String(retryAfter) } },
    );
  }
}

/** Counts one failure for the account and the address (one atomic upsert per key). */
export async function recordLoginFailure(client: LoginClient, limits = throttleLimits()): Promise<void> {
  const { account, ip } = keysOf(client);
  for (const key of ip ? [account, ip] : [account]) {
    await prisma().$executeRaw`
      INSERT INTO login_throttles (key, failures, window_started_at, updated_at)
      VALUES (${key}, 1, now(), now())
      ON CONFLICT (key) DO UPDATE SET
        failures = CASE WHEN login_throttles.window_started_at <= now() - make_interval(secs => ${limits.windowSeconds})
                        THEN 1 ELSE login_throttles.failures + 1 END,
        window_started_at = CASE WHEN login_throttles.window_started_at <= now() - make_interval(secs => ${limits.windowSeconds})
                                 THEN now() ELSE login_throttles.window_started_at END,
        updated_at = now()`;
  }
}

/** A successful sign-in clears the account's counter and sweeps windows that ended long ago. */
export async function recordLoginSuccess(client: LoginClient): Promise<void> {
  const { account } = keysOf(client);
  await prisma().loginThrottle.deleteMany({
    where: { OR: [{ key: account }, { windowStartedAt: { lt: new Date(Date.now() - 86_400_000) } }] },
  });
}

/**
 * The client address for per-address limits: the last X-Forwarded-For hop, i.e. the address the
 * nearest proxy (or Next's own server, which fills the header from the socket) saw. Behind a
 * proxy that appends the header this cannot be forged; reached directly, a client could send its
 * own header, so the per-account limit is the one that always holds.
 */
export function clientAddress(headers: Headers): string | null {
  const forwarded = headers.get("x-forwarded-for");
  const hops =
    forwarded
      ?.split(",")
      .map((h) => h.trim())
      .filter(Boolean) ?? [];
  const last = hops.at(-1) ?? headers.get("x-real-ip")?.trim();
  return last ? last.slice(0, 64) : null;
}

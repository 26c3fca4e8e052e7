// Login throttling that a third party cannot turn into a lock-out of someone else.
//  - Per account AND address: after LOGIN_MAX_FAILURES_PER_ACCOUNT_ADDRESS failures, each further
//    attempt of that account from that address waits, the wait doubling from
//    LOGIN_BACKOFF_BASE_SECONDS up to the window. Guessing at an account from one address only
//    slows that address down; the owner signing in from anywhere else is not affected.
//  - Per address: after LOGIN_MAX_FAILURES_PER_IP failures in a window, the address may sign in to
//    accounts that have signed in from it before, so a guesser behind a shared address does not
//    lock out the people who use it every day; and to any other account, ONE first attempt, when
//    that account has no failures from this address and has not had its first attempt from an
//    over-limit address yet (since its last successful sign-in). So a new person behind a busy
//    company NAT gets in at once with the right password, while a sprayer past the limit gets one
//    guess per account in all (not per window, not per address), and none at the accounts it
//    already guessed at: it cannot try a list of passwords across accounts.
// Every attempt is counted BEFORE its password is checked, by one atomic upsert per counter that
// also decides whether the attempt may go ahead: concurrent attempts queue on the row, so no more
// passwords than the limit are ever checked. A success gives its reservation back.
// Counters live in PostgreSQL (login_throttles), shared by every web process.
import "server-only";
import { isIP } from "node:net";
import { env } from "@/lib/settings/env";
import { sql, type Expression, type ExpressionBuilder } from "kysely";
import { prisma } from "@/lib/db/client";
import { db, type DB } from "@/lib/db/kysely";
import { RateLimited } from "@/lib/errors";
import { logger } from "@/lib/logger";

export interface ThrottleLimits {
  /** Failures of one account from one address before back-off starts. */
  perAccountAddress: number;
  /** Failures from one address (at accounts it never signed in to) per window. */
  perIp: number;
  /** The address window, and the quiet time after which an account+address counter is forgotten. */
  windowSeconds: number;
  /** The first back-off wait; each further failure doubles it, up to windowSeconds. */
  backoffBaseSeconds: number;
}

/** From the environment (lib/settings/env.ts has the names, forms and defaults). */
export const throttleLimits = (): ThrottleLimits => ({
  perAccountAddress: env.LOGIN_MAX_FAILURES_PER_ACCOUNT_ADDRESS,
  perIp: env.LOGIN_MAX_FAILURES_PER_IP,
  windowSeconds: env.LOGIN_THROTTLE_WINDOW_SECONDS,
  backoffBaseSeconds: env.LOGIN_BACKOFF_BASE_SECONDS,
});

export interface LoginClient {
  email: string;
  /** The client address, when known; without one, "unknown" is the address. */
  ip?: string | null;
}

/** One attempt that passed the throttle; its reservation stands as a failure unless it succeeds. */
export interface LoginAttempt {
  succeeded(): Promise<void>;
}

/**
 * The address a client is judged by: an IPv6 client by its /64, since one host usually holds the
 * whole block and could otherwise rotate through it for fresh budgets; IPv4-mapped IPv6 as IPv4.
 */
export function throttleAddress(ip: string): string {
  const address = ip.split("%")[0];
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1];
  if (isIP(address) !== 6) return address;
  const [head, tail] = address.split("::");
  const headGroups = head ? head.split(":") : [];
  const tailGroups = tail ? tail.split(":") : [];
  const groups = tail === undefined ? headGroups : [...headGroups, ...Array<string>(Math.max(0, 8 - headGroups.length - tailGroups.length)).fill("0"), ...tailGroups];
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(":")}::/64`;
}

const keysOf = (client: LoginClient) => {
  const account = client.email.trim().toLowerCase();
  const ip = client.ip ? throttleAddress(client.ip) : "unknown";
  return { pair: `pair:${account}|${ip}`, ip: `ip:${ip}`, known: `known:${account}|${ip}`, first: `first:${account}` };
};

function rateLimited(retryAfter: number): RateLimited {
  const seconds = Math.max(1, retryAfter);
  const minutes = Math.ceil(seconds / 60);
  const wait =
    seconds < 60
      ? `${seconds} second${seconds === 1 ? "" : "s"}`
      : `${minutes} minute${minutes === 1 ? "" : "s"}`;
  return new RateLimited(`Too many failed sign-in attempts. Try again in ${wait}.`, {
    headers: { "Retry-After": String(seconds) },
  });
}

// The counter's columns as typed references, so a renamed column fails the build here too.
type Counter = { failures: Expression<number>; updatedAt: Expression<Date>; windowStartedAt: Expression<Date> };
const counterOf = (eb: ExpressionBuilder<DB, "login_throttles">): Counter => ({
  failures: eb.ref("login_throttles.failures"),
  updatedAt: eb.ref("login_throttles.updated_at"),
  windowStartedAt: eb.ref("login_throttles.window_started_at"),
});
const olderThan = (at: Expression<Date>, seconds: number) => sql<boolean>`${at} <= now() - make_interval(secs => ${seconds})`;

/** Reserves one attempt of this account from this address, or null while it must wait (with how long). */
async function reservePair(key: string, l: ThrottleLimits): Promise<number | null> {
  const window = l.windowSeconds;
  // When the current back-off wait of a counter ends.
  const backoffEnd = (c: Counter) =>
    sql<Date>`${c.updatedAt} + make_interval(secs => LEAST(${window}::int, ${l.backoffBaseSeconds}::int * power(2, ${c.failures} - ${l.perAccountAddress}::int)))`;
  const taken = await db()
    .insertInto("login_throttles")
    .values({ key, failures: 1, window_started_at: sql`now()`, updated_at: sql`now()` })
    .onConflict((oc) =>
      oc
        .column("key")
        .doUpdateSet((eb) => {
          const c = counterOf(eb);
          const quiet = olderThan(c.updatedAt, window);
          return {
            failures: sql`CASE WHEN ${quiet} THEN 1 ELSE ${c.failures} + 1 END`,
            window_started_at: sql`CASE WHEN ${quiet} THEN now() ELSE ${c.windowStartedAt} END`,
            updated_at: sql`now()`,
          };
        })
        .where((eb) => {
          const c = counterOf(eb);
          return eb.or([olderThan(c.updatedAt, window), eb(c.failures, "<", l.perAccountAddress), eb(backoffEnd(c), "<=", sql<Date>`now()`)]);
        }),
    )
    .returning("failures")
    .execute();
  if (taken.length) return null;
  const row = await db()
    .selectFrom("login_throttles")
    .select((eb) => sql<number>`CEIL(EXTRACT(EPOCH FROM (${backoffEnd(counterOf(eb))} - now())))::int`.as("retry_after"))
    .where("key", "=", key)
    .executeTakeFirst();
  return row?.retry_after ?? 1;
}

/** Reserves one attempt from this address in its window, or null while it is over its limit. */
const reserveAddress = (key: string, l: ThrottleLimits) => reserveInWindow(key, l.perIp, l.windowSeconds);

/**
 * A fixed-window counter: reserves one use of `key`, or answers how many seconds until its window
 * ends when `limit` uses are already taken in it. One atomic upsert, so concurrent callers cannot
 * overrun the limit. Also used by the account endpoints (lib/services/accounts/account-throttle.ts).
 */
export async function reserveInWindow(key: string, limit: number, window: number): Promise<number | null> {
  const taken = await db()
    .insertInto("login_throttles")
    .values({ key, failures: 1, window_started_at: sql`now()`, updated_at: sql`now()` })
    .onConflict((oc) =>
      oc
        .column("key")
        .doUpdateSet((eb) => {
          const c = counterOf(eb);
          const expired = olderThan(c.windowStartedAt, window);
          return {
            failures: sql`CASE WHEN ${expired} THEN 1 ELSE ${c.failures} + 1 END`,
            window_started_at: sql`CASE WHEN ${expired} THEN now() ELSE ${c.windowStartedAt} END`,
            updated_at: sql`now()`,
          };
        })
        .where((eb) => {
          const c = counterOf(eb);
          return eb.or([olderThan(c.windowStartedAt, window), eb(c.failures, "<", limit)]);
        }),
    )
    .returning("failures")
    .execute();
  if (taken.length) return null;
  const row = await db()
    .selectFrom("login_throttles")
    .select((eb) => sql<number>`CEIL(EXTRACT(EPOCH FROM (${eb.ref("window_started_at")} + make_interval(secs => ${window}) - now())))::int`.as("retry_after"))
    .where("key", "=", key)
    .executeTakeFirst();
  return row?.retry_after ?? 1;
}

/**
 * An over-limit address's one first attempt at an account: true (and taken) when the account has
 * no failure from this address in the window and no first attempt outstanding from any over-limit
 * address. One atomic insert, so parallel attempts get one between them.
 */
async function reserveFirstAttempt(keys: ReturnType<typeof keysOf>, l: ThrottleLimits): Promise<boolean> {
  const taken = await db()
    .insertInto("login_throttles")
    .columns(["key", "failures", "window_started_at", "updated_at"])
    .expression(
      db()
        .selectNoFrom([sql.val(keys.first).as("key"), sql.lit(1).as("failures"), sql<Date>`now()`.as("window_started_at"), sql<Date>`now()`.as("updated_at")])
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom("login_throttles as p")
                .select(sql.lit(1).as("one"))
                .where("p.key", "=", keys.pair)
                .where("p.failures", ">", 0)
                .where("p.updated_at", ">", sql<Date>`now() - make_interval(secs => ${l.windowSeconds})`),
            ),
          ),
        ),
    )
    .onConflict((oc) => oc.column("key").doNothing())
    .returning("key")
    .execute();
  return taken.length > 0;
}

/** Gives back one use of `key` (a reservation that did not go ahead). */
export async function giveBack(key: string): Promise<void> {
  await prisma()
    .$executeRaw`UPDATE login_throttles SET failures = GREATEST(failures - 1, 0) WHERE key = ${key}`;
}

/**
 * Passes one sign-in attempt through the throttle, counting it as a failure until `succeeded()`;
 * throws 429 with Retry-After (seconds) while this account+address waits or the address is over
 * its limit. Call before the password is checked.
 */
export async function beginLoginAttempt(
  client: LoginClient,
  limits = throttleLimits(),
): Promise<LoginAttempt> {
  const keys = keysOf(client);
  const known = await prisma().loginThrottle.findUnique({
    where: { key: keys.known },
    select: { key: true },
  });
  // An address over its limit still reaches the accounts that signed in from it before.
  let countAddress = !known;
  if (countAddress) {
    const wait = await reserveAddress(keys.ip, limits);
    // Over its limit: a first attempt at an account it has not guessed at (see the header).
    if (wait !== null && !(await reserveFirstAttempt(keys, limits))) throw rateLimited(wait);
    if (wait !== null) countAddress = false;
  }
  const wait = await reservePair(keys.pair, limits);
  if (wait !== null) {
    if (countAddress) await giveBack(keys.ip);
    throw rateLimited(wait);
  }
  return {
    async succeeded() {
      // The password was right: bookkeeping that fails here only leaves the throttle stricter than
      // it needs to be, so it is logged rather than turned into a failed sign-in.
      try {
        // The owner is back: the account may have one first attempt from an over-limit address again.
        await prisma().$executeRaw`
          WITH cleared AS (DELETE FROM login_throttles WHERE key IN (${keys.pair}, ${keys.first})),
               known AS (
                 INSERT INTO login_throttles (key, failures, window_started_at, updated_at)
                 VALUES (${keys.known}, 0, now(), now())
                 ON CONFLICT (key) DO UPDATE SET updated_at = now())
          -- Housekeeping: counters quiet for a day, and addresses not used to sign in (or first
          -- attempts not followed by a sign-in) for 90 days.
          DELETE FROM login_throttles
           WHERE key NOT IN (${keys.known}, ${keys.pair}, ${keys.first})
             AND ((key NOT LIKE 'known:%' AND key NOT LIKE 'first:%' AND updated_at < now() - interval '1 day')
                  OR updated_at < now() - interval '90 days')`;
        if (countAddress) await giveBack(keys.ip);
      } catch (err) {
        logger.warn({ err: err instanceof Error ? err.message : String(err) }, "sign-in throttle bookkeeping failed");
      }
    },
  };
}

// The shared rate budget against real PostgreSQL: two pools stand for two worker processes leasing
// from the same rate_limit_budgets row.
import { Pool } from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "@/tests/support/db";
import { RateLimitWait, SharedRateBudget, type Clock } from "./rate-limit";

const db = useTestDatabase();
const pools: Pool[] = [];
let keys = 0;

/** A pool that counts its queries (the budget's database round trips). */
function worker(): { pool: Pool; queries: () => number } {
  const pool = new Pool({ connectionString: db.url(), max: 2 });
  pools.push(pool);
  let queries = 0;
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  pool.query = ((...args: unknown[]) => {
    queries++;
    return query(...args);
  }) as Pool["query"];
  return { pool, queries: () => queries };
}

/**
 * A local clock that moves only when the budget sleeps (skipped at once) or the test stalls it. It
 * runs far ahead of real time, so the database's slots stay ahead of the database clock and the
 * budget's estimate of that clock's offset only creeps. Only a budget's head sleeps: one budget
 * per clock.
 */
function skippingClock(): Clock & { stall(ms: number): void; slept(): number } {
  let now = 1_000_000;
  let slept = 0;
  return {
    now: () => now,
    async sleep(ms, signal) {
      signal?.throwIfAborted();
      now += ms;
      slept += ms;
      await new Promise((resolve) => setImmediate(resolve));
    },
    stall(ms) {
      now += ms;
    },
    slept: () => slept,
  };
}

/** `loops` callers per budget acquiring until `ms` have passed on `clock`; the times each one may start. */
async function drive(budgets: SharedRateBudget[], loops: number, ms: number, onEach?: () => void, clock: Pick<Clock, "now"> = performance): Promise<number[][]> {
  const deadline = clock.now() + ms;
  return Promise.all(
    budgets.map(async (budget) => {
      const starts: number[] = [];
      await Promise.all(
        Array.from({ length: loops }, async () => {
          while (clock.now() < deadline) {
            await budget.acquire();
            starts.push(clock.now());
            onEach?.();
          }
        }),
      );
      return starts;
    }),
  );
}

/** The most starts inside any window of `windowMs`. */
function busiestWindow(starts: number[], windowMs: number): number {
  const sorted = [...starts].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i] - sorted[j] >= windowMs) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

function achievedPerSecond(starts: number[]): number {
  const sorted = [...starts].sort((a, b) => a - b);
  return ((sorted.length - 1) * 1000) / (sorted[sorted.length - 1] - sorted[0]);
}

afterAll(async () => {
  await Promise.all(pools.map((p) => p.end()));
});

describe("shared rate budget", () => {
  it("two workers together keep to the rate (≥ 0.9×, no 1-second window more than 5% over it), with few round trips", async () => {
    const rate = 200;
    const key = `test:${++keys}`;
    const a = worker();
    const b = worker();
    const budgets = [a, b].map((w) => new SharedRateBudget(w.pool, key, { limit: rate, unit: "second" }));
    const [fromA, fromB] = await drive(budgets, 4, 3_000);
    const all = [...fromA, ...fromB];

    expect(busiestWindow(all, 1000)).toBeLessThanOrEqual(rate * 1.05);
    const achieved = achievedPerSecond(all);
    expect(achieved).toBeGreaterThanOrEqual(rate * 0.9);
    expect(achieved).toBeLessThanOrEqual(rate * 1.02);
    // Both workers spent the one budget.
    expect(Math.min(fromA.length, fromB.length)).toBeGreaterThan(all.length * 0.2);
    // Leases, not a round trip per request.
    expect(a.queries() + b.queries()).toBeLessThan(all.length / 4);
  });

  it("a busy event loop does not push the schedule back (late wake-ups lose no slot)", async () => {
    const rate = 100;
    const w = worker();
    const clock = skippingClock();
    const budget = new SharedRateBudget(w.pool, `test:${++keys}`, { limit: rate, unit: "second" }, undefined, clock);
    let last = clock.now();
    // Every 40 ms the loop is blocked for 15 ms, as on an overloaded machine.
    const [starts] = await drive(
      [budget],
      4,
      2_500,
      () => {
        if (clock.now() - last < 40) return;
        clock.stall(15);
        last = clock.now();
      },
      clock,
    );
    expect(achievedPerSecond(starts)).toBeGreaterThanOrEqual(rate * 0.9);
    expect(busiestWindow(starts, 1000)).toBeLessThanOrEqual(rate * 1.05);
  });

  it("spaces requests at low rates, and gives unspent slots back when the worker goes idle", async () => {
    const key = `test:${++keys}`;
    const a = worker();
    await a.pool.query("SELECT 1");
    const clock = skippingClock();
    const slow = new SharedRateBudget(a.pool, key, { limit: 5, unit: "second" }, undefined, clock);
    const starts: number[] = [];
    for (let i = 0; i < 4; i++) {
      await slow.acquire();
      starts.push(clock.now());
    }
    // Slots are 200 ms apart on the database clock and none is spent early (spent at once, they would
    // be ~0 ms apart). The sleeps are skipped, so timers play no part; the 50 ms allow for the
    // budget's estimate of the database clock, which a later, faster reply corrects by what that
    // reply was faster (tens of ms on a loaded machine).
    for (let i = 1; i < 4; i++) expect(starts[i] - starts[i - 1]).toBeGreaterThanOrEqual(150);

    // A lease of 100 ms of a fast budget, one slot spent: after the idle delay the rest goes back,
    // so another worker starts at once instead of after the first one's unspent slots.
    const fastKey = `test:${++keys}`;
    const first = new SharedRateBudget(a.pool, fastKey, { limit: 50, unit: "second" });
    await first.acquire();
    await new Promise((r) => setTimeout(r, 300));
    const { rows } = await a.pool.query<{ free: boolean }>("SELECT next_at <= clock_timestamp() AS free FROM rate_limit_budgets WHERE key = $1", [fastKey]);
    expect(rows[0].free).toBe(true);
    const b = worker();
    await b.pool.query("SELECT 1");
    const other = new SharedRateBudget(b.pool, fastKey, { limit: 50, unit: "second" });
    await other.acquire();
    // The other worker's slot is the first of its lease, leased from the returned (free) schedule:
    // it starts no later than the database clock when it asked, not after the first worker's slots.
    const lease = await b.pool.query<{ late_ms: number }>(
      "SELECT EXTRACT(EPOCH FROM (next_at - clock_timestamp())) * 1000 AS late_ms FROM rate_limit_budgets WHERE key = $1",
      [fastKey],
    );
    expect(Number(lease.rows[0].late_ms)).toBeLessThanOrEqual(100);
  });

  it("refuses a slot further away than the caller waits (1/day), leasing nothing, and leases it once due", async () => {
    const w = worker();
    const key = `test:${++keys}`;
    const clock = skippingClock();
    const budget = new SharedRateBudget(w.pool, key, { limit: 1, unit: "day" }, 1000, clock);
    await budget.acquire();
    const nextAt = async () => (await w.pool.query<{ t: string }>("SELECT next_at::text AS t FROM rate_limit_budgets WHERE key = $1", [key])).rows[0].t;
    const before = await nextAt();
    const refused = await budget.acquire().catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(RateLimitWait);
    expect((refused as RateLimitWait).waitMs).toBeGreaterThan(23 * 3600_000);
    // Nothing leased: whoever comes when the slot is due gets it.
    expect(await nextAt()).toBe(before);
    await w.pool.query("UPDATE rate_limit_budgets SET next_at = clock_timestamp() WHERE key = $1", [key]);
    await budget.acquire();
    // The slot was due: no wait for it (a day's wait, were the refused lease's slot taken).
    expect(clock.slept()).toBe(0);
  });

  it("stops waiting when the signal aborts", async () => {
    const w = worker();
    const budget = new SharedRateBudget(w.pool, `test:${++keys}`, { limit: 1, unit: "minute" });
    await budget.acquire();
    const controller = new AbortController();
    const waiting = budget.acquire(controller.signal);
    setTimeout(() => controller.abort(new Error("stopped")), 50);
    await expect(waiting).rejects.toThrow("stopped");
  });
});

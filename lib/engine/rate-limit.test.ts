// The shared rate budget against real PostgreSQL: two pools stand for two worker processes leasing
// from the same rate_limit_budgets row.
import { Pool } from "pg";
import { afterAll, describe, expect, it, vi } from "vitest";
import { useTestDatabase } from "@/tests/support/db";
import { RateLimitWait, SharedRateBudget, type Clock } from "./rate-limit";

const db = useTestDatabase();
const pools: Pool[] = [];
let keys = 0;

/** A pool that counts its queries (the budget's database round trips). */
function worker(): { pool: Pool; queries: () => number } {
  const pool = new Pool({ connectionString: db.url(), max: 2 });
  // The file's database is dropped WITH (FORCE) at the end: an idle client it ends is not a failure.
  pool.on("error", () => undefined);
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

/**
 * `loops` callers per budget acquiring until `total` requests have started in all; the times (on
 * each budget's own clock) each budget's requests started.
 */
async function drive(budgets: SharedRateBudget[], clocks: Pick<Clock, "now">[], loops: number, total: number, onEach?: () => void): Promise<number[][]> {
  let started = 0;
  return Promise.all(
    budgets.map(async (budget, i) => {
      const starts: number[] = [];
      await Promise.all(
        Array.from({ length: loops }, async () => {
          while (started < total) {
            started++;
            await budget.acquire();
            starts.push(clocks[i].now());
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

/**
 * Starts the budget's schedule an hour ahead of the database clock. Every slot then lies in the
 * future of real time for the whole test, so the schedule is a pure function of the leases (never
 * pushed forward by `clock_timestamp()`), and with skipping clocks nothing depends on how fast this
 * machine is: the tests assert what the budget does, not how fast it goes (that is the bench's job).
 */
async function scheduleAhead(pool: Pool, key: string): Promise<number> {
  const { rows } = await pool.query<{ at: number }>(
    `INSERT INTO rate_limit_budgets (key, next_at, updated_at) VALUES ($1, clock_timestamp() + interval '1 hour', now())
     RETURNING EXTRACT(EPOCH FROM next_at)::float8 * 1000 AS at`,
    [key],
  );
  return rows[0].at;
}

/** Milliseconds of the schedule handed out since `from`: next_at minus it, on the database clock. */
async function scheduleUsed(pool: Pool, key: string, from: number): Promise<number> {
  const { rows } = await pool.query<{ at: number }>("SELECT EXTRACT(EPOCH FROM next_at)::float8 * 1000 AS at FROM rate_limit_budgets WHERE key = $1", [key]);
  return rows[0].at - from;
}

afterAll(async () => {
  await Promise.all(pools.map((p) => p.end()));
});

describe("shared rate budget", () => {
  it("two workers share one budget: one slot of the schedule per request, never more, leased in runs rather than a round trip each", async () => {
    const rate = 200;
    const interval = 1000 / rate;
    const key = `test:${++keys}`;
    const a = worker();
    const b = worker();
    const from = await scheduleAhead(a.pool, key);
    const clocks = [skippingClock(), skippingClock()];
    const budgets = [a, b].map((w, i) => new SharedRateBudget(w.pool, key, { limit: rate, unit: "second" }, undefined, clocks[i]));
    const [fromA, fromB] = await drive(budgets, clocks, 4, 400);
    const total = fromA.length + fromB.length;
    expect(total).toBe(400);
    // Both workers spent the one budget.
    expect(fromA.length).toBeGreaterThan(0);
    expect(fromB.length).toBeGreaterThan(0);
    // Slots are disjoint: 400 requests took at least 400 slots of the schedule (never over the rate),
    // and lost none (at most the two leases each worker may hold ahead are still unspent).
    const used = await scheduleUsed(a.pool, key, from);
    expect(used).toBeGreaterThanOrEqual(total * interval - 1);
    expect(used).toBeLessThanOrEqual((total + 2 * 2 * (100 / interval)) * interval + 1);
    // Leases, not a round trip per request.
    expect(a.queries() + b.queries()).toBeLessThan(total / 4);
  });

  it("a busy event loop does not push the schedule back (late wake-ups lose no slot, and cause no burst)", async () => {
    const rate = 100;
    const interval = 1000 / rate;
    const key = `test:${++keys}`;
    const w = worker();
    const from = await scheduleAhead(w.pool, key);
    const clock = skippingClock();
    const budget = new SharedRateBudget(w.pool, key, { limit: rate, unit: "second" }, undefined, clock);
    let last = clock.now();
    // Every 40 ms the loop is blocked for 15 ms, as on an overloaded machine.
    const [starts] = await drive([budget], [clock], 4, 250, () => {
      if (clock.now() - last < 40) return;
      clock.stall(15);
      last = clock.now();
    });
    expect(starts).toHaveLength(250);
    // No slot dropped for lateness: the 250 requests used 250 slots, plus at most the two leases
    // held ahead (10 slots each at 100/s).
    expect(await scheduleUsed(w.pool, key, from)).toBeLessThanOrEqual((250 + 20) * interval + 1);
    // On the budget's clock, no second holds more than its rate plus the slot its grace lets in late.
    expect(busiestWindow(starts, 1000)).toBeLessThanOrEqual(rate + 2);
  });

  it("spaces requests at low rates, and gives unspent slots back when the worker goes idle", async () => {
    const key = `test:${++keys}`;
    const a = worker();
    const from = await scheduleAhead(a.pool, key);
    const clock = skippingClock();
    const slow = new SharedRateBudget(a.pool, key, { limit: 5, unit: "second" }, undefined, clock);
    for (let i = 0; i < 4; i++) await slow.acquire();
    // One slot per request, 200 ms apart on the database clock: 4 requests took 4 slots (spent at
    // once, they would have taken one lease's worth).
    expect(await scheduleUsed(a.pool, key, from)).toBeGreaterThanOrEqual(4 * 200 - 1);

    // A lease of 100 ms of a fast budget, one slot spent: after the idle delay the rest goes back,
    // so another worker starts at once instead of after the first one's unspent slots.
    const fastKey = `test:${++keys}`;
    const first = new SharedRateBudget(a.pool, fastKey, { limit: 50, unit: "second" });
    await first.acquire();
    // Waits for the condition (the idle return), not for a time.
    await vi.waitFor(
      async () => {
        const { rows } = await a.pool.query<{ free: boolean }>("SELECT next_at <= clock_timestamp() AS free FROM rate_limit_budgets WHERE key = $1", [fastKey]);
        expect(rows[0].free).toBe(true);
      },
      { timeout: 10_000, interval: 50 },
    );
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
    const before = w.queries();
    const waiting = budget.acquire(controller.signal);
    // Aborted once it has asked for the next slot (a minute away), not after some time.
    await vi.waitFor(() => expect(w.queries()).toBeGreaterThan(before));
    controller.abort(new Error("stopped"));
    await expect(waiting).rejects.toThrow("stopped");
  });
});

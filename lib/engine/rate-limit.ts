// Request budgets shared by every worker: one row per destination connector in rate_limit_budgets,
// used as a GCRA schedule (`next_at` = the first slot nobody holds). A worker leases a run of
// consecutive slots with one atomic UPSERT (the row lock serialises leases across processes) and
// spends them locally, one request per slot, so N workers together never exceed the configured rate
// and a request costs a database round trip only once per lease. Also a small in-process semaphore
// for in-flight requests.
import "server-only";
import { sql } from "kysely";
import type { Pool } from "pg";
import type { Catalog, RateLimitUnit, Stream } from "@/lib/connectors/types";
import { compiledByShape, sqlBuilder, viaClient } from "@/lib/db/kysely";

export const UNIT_SECONDS: Readonly<Record<RateLimitUnit, number>> = { second: 1, minute: 60, hour: 3600, day: 86400 };

export interface RateSettings {
  /** Requests per unit; 0 means unlimited. */
  limit: number;
  unit: RateLimitUnit;
  /** Requests in flight at once. */
  concurrency: number;
}

const DEFAULT_CONCURRENCY = 4;

function positive(value: unknown): number {
  const n = typeof value === "number" ? value : Number(value);
  return Number.isFinite(n) && n > 0 ? n : 0;
}

function unitOf(value: unknown): RateLimitUnit | undefined {
  return typeof value === "string" && value in UNIT_SECONDS ? (value as RateLimitUnit) : undefined;
}

/** A stream's non-zero settings override the catalog's (as the reference's engine does). */
export function effectiveRateSettings(catalog: Partial<Catalog> | null | undefined, stream: Stream): RateSettings {
  const streamLimit = positive(stream.request_rate_limit);
  const limit = streamLimit || positive(catalog?.request_rate_limit);
  const unit =
    (streamLimit ? unitOf(stream.request_rate_limit_unit) : undefined) ?? unitOf(catalog?.request_rate_limit_unit) ?? unitOf(stream.request_rate_limit_unit) ?? "minute";
  const concurrency = Math.floor(positive(stream.request_rate_concurrency) || positive(catalog?.request_rate_concurrency) || DEFAULT_CONCURRENCY);
  return { limit, unit, concurrency: Math.max(1, concurrency) };
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** The budget's local time: performance.now() and real timers, or a test's own. */
export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

const realClock: Clock = { now: () => performance.now(), sleep };

/** A lease covers about this much of the schedule: ~10 round trips a second at most per worker. */
const LEASE_MS = 100;
/** Unspent slots go back to the schedule after this long without a request. */
const IDLE_RETURN_MS = 100;
/**
 * How late a slot may still be spent: timers fire a few ms late on a busy machine, but the slots a
 * stall missed must not all go at once after it (a burst). At slow rates half an interval: dropping
 * a slot there costs a whole interval (6 s at 10/min) for a stall of a few tens of ms.
 */
const GRACE_MS = 20;
const MAX_COMPETITORS = 64;
const MAX_LEASE = 1000;

/** $3: the lease is refused (no row) when its first slot is further away than this many ms (null: never). */
const ms = (n: unknown) => sql`${n} * interval '1 millisecond'`;

/**
 * Leases `span` ms of the budget after its next free slot (or now), unless that slot is more than
 * `maxWaitMs` away: then no row. Built once (a round trip per lease of a rate-limited destination).
 */
const leaseQuery = compiledByShape((_shape: "lease", at: { key: string; span: number; maxWaitMs: number | null }) =>
  sqlBuilder()
    .insertInto("rate_limit_budgets")
    .values({ key: at.key, next_at: sql<Date>`clock_timestamp() + ${ms(at.span)}`, updated_at: sql<Date>`now()` })
    .onConflict((oc) =>
      oc
        .column("key")
        .doUpdateSet((eb) => ({ next_at: sql<Date>`GREATEST(${eb.ref("rate_limit_budgets.next_at")}, clock_timestamp()) + ${ms(at.span)}`, updated_at: sql<Date>`now()` }))
        .where((eb) => sql<boolean>`${at.maxWaitMs}::float8 IS NULL OR ${eb.ref("rate_limit_budgets.next_at")} <= clock_timestamp() + ${ms(sql`${at.maxWaitMs}::float8`)}`),
    )
    .returning((eb) => [
      sql<string>`${eb.ref("rate_limit_budgets.next_at")}::text`.as("next_at"),
      sql<number>`EXTRACT(EPOCH FROM ${eb.ref("rate_limit_budgets.next_at")})::float8 * 1000`.as("end_ms"),
      sql<number>`EXTRACT(EPOCH FROM clock_timestamp())::float8 * 1000`.as("now_ms"),
    ]),
);

/** How long until the budget's next free slot. */
const firstFreeQuery = compiledByShape((_shape: "first free", at: { key: string }) =>
  sqlBuilder()
    .selectFrom("rate_limit_budgets")
    .select((eb) => sql<number>`GREATEST(0, EXTRACT(EPOCH FROM ${eb.ref("next_at")} - clock_timestamp()) * 1000)::float8`.as("wait_ms"))
    .where("key", "=", at.key),
);

/**
 * The budget's next free slot is further away than the caller will wait: nothing was leased, so a
 * run can give its worker up for `waitMs` (run-attempt.ts) instead of sleeping on it.
 */
export class RateLimitWait extends Error {
  constructor(readonly waitMs: number) {
    super(`The destination's rate limit allows the next request in ${Math.ceil(waitMs / 1000)} s.`);
    this.name = "RateLimitWait";
  }
}

/** Gives `ms` of the lease back, only when nobody leased after us: otherwise the slots stay ours until they expire. */
const returnQuery = compiledByShape((_shape: "return", at: { key: string; leaseEnd: string; ms: number }) =>
  sqlBuilder()
    .updateTable("rate_limit_budgets")
    .set((eb) => ({ next_at: sql<Date>`${eb.ref("next_at")} - ${ms(at.ms)}`, updated_at: sql<Date>`now()` }))
    .where("key", "=", at.key)
    .where("next_at", "=", sql<Date>`${at.leaseEnd}::timestamptz`),
);

/** One process's view of one budget: the slots it leased and has not spent yet. */
interface LocalBudget {
  /** Database times (epoch ms) of leased, unspent slots, ascending. */
  slots: number[];
  /** The slots of the latest lease are its last `lastLeaseSize` (the only ones that can be returned). */
  lastLeaseSize: number;
  /** `next_at` as the latest lease left it, to return its unspent tail only if nobody leased since. */
  lastLeaseEnd: string;
  /** The same, in epoch ms. */
  lastLeaseEndMs: number;
  /** Smoothed number of workers leasing from this budget, from the gaps others leave in our leases. */
  competitors: number;
  leasing?: Promise<void>;
  /** Callers of acquire() in progress; the head holds `head` until its slot. */
  active: number;
  head: Semaphore;
  lastUsed: number;
  idleTimer?: NodeJS.Timeout;
}

// Per pool, so two pools in one process (tests) behave like two workers.
const budgets = new WeakMap<Pool, Map<string, LocalBudget>>();

/**
 * Local time (the budget's clock) minus database time, estimated from replies: `arrived - database
 * now` overestimates it by the reply's travel time, so the smallest sample is the closest that is
 * never early. It creeps up 1 ms a second to follow a drifting clock. Slots are kept in database
 * time and mapped with the latest estimate, so a slow first reply does not leave its slots late
 * (and then bunched with the next lease's).
 */
const clockOffsets = new WeakMap<Pool, { offset: number; at: number }>();

function observeClock(pool: Pool, arrived: number, databaseNowMs: number): void {
  const sample = arrived - databaseNowMs;
  const known = clockOffsets.get(pool);
  clockOffsets.set(pool, { offset: known ? Math.min(sample, offsetAt(known, arrived)) : sample, at: arrived });
}

const offsetAt = (known: { offset: number; at: number }, now: number) => known.offset + (now - known.at) / 1000;

/** The local time of a database time, at local time `now`. */
function localTime(pool: Pool, databaseMs: number, now: number): number {
  const known = clockOffsets.get(pool);
  return databaseMs + (known ? offsetAt(known, now) : 0);
}

function localBudget(pool: Pool, id: string): LocalBudget {
  let byKey = budgets.get(pool);
  if (!byKey) {
    byKey = new Map();
    budgets.set(pool, byKey);
  }
  let budget = byKey.get(id);
  if (!budget) {
    budget = { slots: [], lastLeaseSize: 0, lastLeaseEnd: "", lastLeaseEndMs: 0, competitors: 1, active: 0, head: new Semaphore(1), lastUsed: 0 };
    byKey.set(id, budget);
  }
  return budget;
}

/**
 * One budget (e.g. `destination:12`) in PostgreSQL; acquire() resolves when a request may start.
 * Over any window of D seconds the workers together start at most rate × (D + grace) + 1 requests:
 * slots are disjoint, none is spent before its time, and one is spent late (a busy event loop) only
 * within its grace (20 ms, or half an interval at rates under 25/s), else dropped. That is at most
 * 1.5 requests over the rate at 25/s and below, 2% at 100/s.
 */
export class SharedRateBudget {
  private readonly intervalMs: number;
  private readonly graceMs: number;
  private readonly local: LocalBudget;

  /**
   * `maxWaitMs`: acquire() throws RateLimitWait instead of waiting for a slot further away than this
   * (a rate of 1/day must not hold a worker for a day); the slot stays free for whoever comes then.
   */
  constructor(
    private readonly pool: Pool,
    readonly key: string,
    settings: Pick<RateSettings, "limit" | "unit">,
    private readonly maxWaitMs?: number,
    private readonly clock: Clock = realClock,
  ) {
    this.intervalMs = (UNIT_SECONDS[settings.unit] * 1000) / settings.limit;
    this.graceMs = Math.max(GRACE_MS, this.intervalMs / 2);
    this.local = localBudget(pool, `${key}@${this.intervalMs}`);
  }

  /**
   * Waits for this request's slot; returns the milliseconds waited. Callers of one process line up
   * and only the head waits for a slot, so a worker holds at most its current lease and one leased
   * ahead. A head that wakes late does not push the schedule back: the next slot keeps its time, so
   * a slow event loop (late wake-ups, short stalls) still reaches the configured rate.
   */
  async acquire(signal?: AbortSignal): Promise<number> {
    const { clock, pool } = this;
    const started = clock.now();
    const b = this.local;
    b.active++;
    const release = await b.head.acquire();
    try {
      for (;;) {
        signal?.throwIfAborted();
        const slot = this.takeSlot();
        if (slot === undefined) {
          await this.lease();
          continue;
        }
        // Half the lease spent: lease the next one now, so the head never waits for the database.
        if (b.slots.length <= this.leaseSize() / 2 && !b.leasing) this.lease().catch(() => undefined);
        // Timers may fire a little early, or far too late (a stalled event loop): a slot is spent
        // neither before its time nor after its grace, else bursts would follow stalls.
        while (clock.now() < localTime(pool, slot, clock.now())) await clock.sleep(Math.max(1, localTime(pool, slot, clock.now()) - clock.now()), signal);
        if (clock.now() <= localTime(pool, slot, clock.now()) + this.graceMs) break;
      }
    } finally {
      release();
      b.active--;
      b.lastUsed = clock.now();
      this.armIdleReturn();
    }
    return clock.now() - started;
  }

  /** Slots leased per round trip: LEASE_MS of the rate, shared among the workers seen leasing. */
  private leaseSize(): number {
    return Math.min(MAX_LEASE, Math.max(1, Math.round(LEASE_MS / this.intervalMs / this.local.competitors)));
  }

  /** The earliest unexpired slot, or undefined when a lease is needed. */
  private takeSlot(): number | undefined {
    const b = this.local;
    const now = this.clock.now();
    while (b.slots.length > 0 && localTime(this.pool, b.slots[0], now) + this.graceMs < now) b.slots.shift();
    const slot = b.slots.shift();
    b.lastLeaseSize = Math.min(b.lastLeaseSize, b.slots.length);
    return slot;
  }

  /** One round trip for the next run of slots; concurrent callers share it. Throws RateLimitWait when refused. */
  private lease(): Promise<void> {
    const b = this.local;
    b.leasing ??= this.leaseOnce().finally(() => {
      b.leasing = undefined;
    });
    return b.leasing;
  }

  private async leaseOnce(): Promise<void> {
    const b = this.local;
    const n = this.leaseSize();
    const span = n * this.intervalMs;
    const rows = await viaClient(this.pool, leaseQuery("lease", { key: this.key, span, maxWaitMs: this.maxWaitMs ?? null }));
    if (rows.length === 0) {
      const free = await viaClient(this.pool, firstFreeQuery("first free", { key: this.key }));
      throw new RateLimitWait(Math.max(this.maxWaitMs ?? 0, free[0]?.wait_ms ?? 0));
    }
    // Slot arithmetic happens on the database clock, so workers with skewed clocks still agree.
    observeClock(this.pool, this.clock.now(), rows[0].now_ms);
    const start = rows[0].end_ms - span;
    // Leasing ahead, a lease would follow our previous one unless other workers leased in between.
    if (b.slots.length > 0) {
      const othersMs = Math.max(0, start - Math.max(b.lastLeaseEndMs, rows[0].now_ms));
      const seen = Math.min(MAX_COMPETITORS, 1 + othersMs / span);
      b.competitors = Math.max(1, (b.competitors + seen) / 2);
    }
    for (let i = 0; i < n; i++) b.slots.push(start + i * this.intervalMs);
    b.lastLeaseSize = n;
    b.lastLeaseEnd = rows[0].next_at;
    b.lastLeaseEndMs = rows[0].end_ms;
  }

  /** After IDLE_RETURN_MS without a request, gives the unspent tail back so other workers get it. */
  private armIdleReturn(): void {
    const b = this.local;
    if (b.idleTimer || b.slots.length === 0) return;
    b.idleTimer = setTimeout(() => {
      b.idleTimer = undefined;
      if (b.active > 0 || b.leasing || this.clock.now() - b.lastUsed < IDLE_RETURN_MS) {
        this.armIdleReturn();
        return;
      }
      this.giveBack().catch(() => undefined);
    }, IDLE_RETURN_MS);
    b.idleTimer.unref();
  }

  private async giveBack(): Promise<void> {
    const b = this.local;
    const count = Math.min(b.lastLeaseSize, b.slots.length);
    if (count === 0) return;
    // Dropped before asking: if someone leased after us the slots merely expire, never get spent twice.
    b.slots.splice(b.slots.length - count, count);
    b.lastLeaseSize = 0;
    await viaClient(this.pool, returnQuery("return", { key: this.key, leaseEnd: b.lastLeaseEnd, ms: count * this.intervalMs }));
  }
}

/** Bounded in-flight work: at most `size` holders at once, FIFO. */
export class Semaphore {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly size: number) {}

  async acquire(): Promise<() => void> {
    if (this.active >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    };
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    const release = await this.acquire();
    try {
      return await fn();
    } finally {
      release();
    }
  }
}

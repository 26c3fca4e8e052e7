// Request budgets shared by every worker: one row per destination connector in rate_limit_budgets,
// used as a GCRA schedule. Each request reserves the next free slot with one atomic UPSERT (the row
// lock serialises reservations across processes) and sleeps until its slot, so N workers together
// never exceed the configured rate. Also a small in-process semaphore for in-flight requests.
import type { Pool } from "pg";
import type { Catalog, RateLimitUnit, Stream } from "@/lib/connectors/types";

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

/** A stream's non-zero settings override the catalog's (behaviour.md section 8). */
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

const localQueues = new Map<string, Semaphore>();
function localQueue(key: string): Semaphore {
  let queue = localQueues.get(key);
  if (!queue) {
    queue = new Semaphore(1);
    localQueues.set(key, queue);
  }
  return queue;
}

/** One budget (e.g. `destination:12`) in PostgreSQL; acquire() resolves when a request may start. */
export class SharedRateBudget {
  private readonly intervalMs: number;

  constructor(
    private readonly pool: Pool,
    readonly key: string,
    settings: Pick<RateSettings, "limit" | "unit">,
  ) {
    this.intervalMs = (UNIT_SECONDS[settings.unit] * 1000) / settings.limit;
  }

  /**
   * Waits for this request's slot; returns the milliseconds waited. Callers of one process line up
   * locally and only the head holds a reservation, so a late wake-up (busy event loop) can squeeze
   * at most one other process's request: the head then pushes the schedule back by its lateness.
   */
  async acquire(signal?: AbortSignal): Promise<number> {
    const started = performance.now();
    const release = await localQueue(this.key).acquire();
    try {
      signal?.throwIfAborted();
      const wait = await this.reserve();
      const wake = performance.now() + wait;
      await sleep(wait, signal);
      const late = performance.now() - wake;
      if (late > 2) {
        await this.pool.query("UPDATE rate_limit_budgets SET next_at = next_at + $2 * interval '1 millisecond' WHERE key = $1", [this.key, late]);
      }
    } finally {
      release();
    }
    return performance.now() - started;
  }

  private async reserve(): Promise<number> {
    // Slot arithmetic happens on the database clock, so workers with skewed clocks still agree.
    const { rows } = await this.pool.query<{ wait_ms: number }>(
      `INSERT INTO rate_limit_budgets AS b (key, next_at, updated_at)
       VALUES ($1, clock_timestamp() + $2 * interval '1 millisecond', now())
       ON CONFLICT (key) DO UPDATE
         SET next_at = GREATEST(b.next_at, clock_timestamp()) + $2 * interval '1 millisecond', updated_at = now()
       RETURNING GREATEST(0, EXTRACT(EPOCH FROM (b.next_at - $2 * interval '1 millisecond' - clock_timestamp())) * 1000)::float8 AS wait_ms`,
      [this.key, this.intervalMs],
    );
    return Math.ceil(rows[0]?.wait_ms ?? 0);
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

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

  /** Reserves one request slot and waits for it; returns the milliseconds waited. */
  async acquire(signal?: AbortSignal): Promise<number> {
    // Slot arithmetic happens on the database clock, so workers with skewed clocks still agree.
    const { rows } = await this.pool.query<{ wait_ms: number }>(
      `INSERT INTO rate_limit_budgets AS b (key, next_at, updated_at)
       VALUES ($1, clock_timestamp() + $2 * interval '1 millisecond', now())
       ON CONFLICT (key) DO UPDATE
         SET next_at = GREATEST(b.next_at, clock_timestamp()) + $2 * interval '1 millisecond', updated_at = now()
       RETURNING GREATEST(0, EXTRACT(EPOCH FROM (b.next_at - $2 * interval '1 millisecond' - clock_timestamp())) * 1000)::float8 AS wait_ms`,
      [this.key, this.intervalMs],
    );
    const wait = Math.ceil(rows[0]?.wait_ms ?? 0);
    await sleep(wait, signal);
    return wait;
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

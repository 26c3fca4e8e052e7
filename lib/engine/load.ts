// Loading: sends mapped records to the destination in stream-sized chunks (or one by one), with a
// bound on requests in flight, the shared rate budget, retries with exponential backoff and jitter on
// retryable outcomes (honouring Retry-After up to its cap), and bisection of a chunk that failed as a
// whole so the bad rows fail alone. One outcome per record, except records a stop left unsent. A wait
// longer than `longWaitMs` (rate budget or retry) is handed to `onLongWait` instead of slept through,
// so the run can give its worker up meanwhile.
import type { DestinationConnector, NewRows, Row, Stream, WriteOutcome, WriteRecord } from "@/lib/connectors/types";
import { capRetryAfter } from "@/lib/net/retry-after";
import { RateLimitWait, Semaphore, sleep, type SharedRateBudget } from "./rate-limit";
import { engineSettings } from "./settings";

export interface LoadTimings {
  load: number;
  wait: number;
}

export interface LoaderOptions {
  destination: DestinationConnector;
  config: Row;
  stream: Stream;
  /** Chunks of `batchSize` in one request when true; one record per request otherwise. */
  batch: boolean;
  batchSize: number;
  concurrency: number;
  budget?: SharedRateBudget;
  signal?: AbortSignal;
  maxAttempts?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Waits longer than this go to onLongWait (the budget must be made with the same maximum). */
  longWaitMs?: number;
  /**
   * A wait longer than longWaitMs: the run stops and resumes later. For a retry it may refuse (false):
   * the records then fail with their last outcome. Returning true means the signal is aborted.
   */
  onLongWait?: (waitMs: number, cause: LongWaitCause) => boolean;
  /**
   * After each request, the records the destination accepted in it, awaited before the request's
   * outcomes count (the delivery ledger writes them here, before their batch commits).
   */
  onDelivered?: (records: WriteRecord[]) => Promise<void>;
  /** Handed to every write (types.ts: NewRows). */
  newRows?: NewRows;
}

export type LongWaitCause = "retry" | "rate_limit";

export function isRetryable(outcome: WriteOutcome): boolean {
  if (outcome.ok) return false;
  if (outcome.retryable !== undefined) return outcome.retryable;
  const status = outcome.status;
  return status === 429 || status === 408 || status === 0 || (status !== undefined && status >= 500);
}

/** Exponential backoff with full jitter in [50%, 100%] of the step, never below Retry-After (capped). */
export function retryDelayMs(attempt: number, retryAfterSeconds: number | undefined, baseMs: number, maxMs: number): number {
  const step = Math.min(maxMs, baseMs * 2 ** attempt);
  const jittered = step / 2 + Math.random() * (step / 2);
  return Math.max(jittered, capRetryAfter(retryAfterSeconds ?? 0) * 1000);
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export class Loader {
  /** Milliseconds spent writing and waiting (rate budget, backoff), for the caller to read. */
  readonly timings: LoadTimings = { load: 0, wait: 0 };
  private readonly inFlight: Semaphore;
  private readonly maxAttempts: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly chunkSize: number;

  constructor(private readonly options: LoaderOptions) {
    this.inFlight = new Semaphore(Math.max(1, options.concurrency));
    this.maxAttempts = options.maxAttempts ?? engineSettings.writeAttempts;
    this.baseDelayMs = options.baseDelayMs ?? engineSettings.retryBaseMs;
    this.maxDelayMs = options.maxDelayMs ?? 30_000;
    this.chunkSize = options.batch ? Math.max(1, options.batchSize > 0 ? options.batchSize : 1000) : 1;
  }

  /** Writes every record; resolves with one outcome per record key (only finished records after a stop). */
  async load(records: WriteRecord[]): Promise<Map<string, WriteOutcome>> {
    const chunks: WriteRecord[][] = [];
    for (let i = 0; i < records.length; i += this.chunkSize) chunks.push(records.slice(i, i + this.chunkSize));
    const results = await Promise.allSettled(chunks.map((chunk) => this.deliverIsolating(chunk)));
    const byKey = new Map<string, WriteOutcome>();
    for (const result of results) {
      if (result.status === "fulfilled") for (const o of result.value) byKey.set(o.key, o);
      // After a stop (cancel, shutdown) unsent chunks have no outcome: the caller records what was sent.
      else if (!this.options.signal?.aborted) throw result.reason;
    }
    return byKey;
  }

  /**
   * One request: waits for a free in-flight slot and for the rate budget, then writes. Undefined when
   * the run stopped first (or while a write that threw was under way): those records get no outcome.
   */
  private async request(chunk: WriteRecord[]): Promise<WriteOutcome[] | undefined> {
    const { destination, config, stream, signal, budget } = this.options;
    const { timings } = this;
    return this.inFlight.run(async () => {
      if (signal?.aborted) return undefined;
      if (budget) {
        try {
          timings.wait += await budget.acquire(signal);
        } catch (err) {
          if (err instanceof RateLimitWait && this.options.onLongWait) {
            this.options.onLongWait(err.waitMs, "rate_limit");
            return undefined;
          }
          if (signal?.aborted) return undefined;
          throw err;
        }
      }
      if (signal?.aborted) return undefined;
      const started = performance.now();
      let outcomes: WriteOutcome[];
      try {
        outcomes = await destination.write(config, chunk, { stream, batch: this.options.batch, signal, newRows: this.options.newRows });
      } catch (err) {
        if (signal?.aborted) return undefined;
        // The contract says write() reports failures as outcomes; a throw is treated as a transient failure.
        outcomes = chunk.map((r) => ({ key: r.key, ok: false, error: errorMessage(err), status: 0, retryable: true }));
      } finally {
        timings.load += performance.now() - started;
      }
      const byKey = new Map(outcomes.map((o) => [o.key, o]));
      const results = chunk.map(
        (r) => byKey.get(r.key) ?? { key: r.key, ok: false, error: "The destination returned no outcome for this record.", retryable: false },
      );
      const { onDelivered } = this.options;
      if (onDelivered) {
        const accepted = chunk.filter((_, i) => results[i].ok);
        if (accepted.length > 0) await onDelivered(accepted);
      }
      return results;
    });
  }

  /**
   * A request plus retries of its retryable outcomes, with backoff. After a stop, only the records
   * that have their final outcome: the rest are sent again when the run resumes.
   */
  private async deliver(chunk: WriteRecord[]): Promise<WriteOutcome[]> {
    const { signal, onLongWait } = this.options;
    const final = new Map<string, WriteOutcome>();
    let pending = chunk;
    for (let attempt = 0; pending.length > 0; attempt++) {
      const outcomes = await this.request(pending);
      if (!outcomes) break;
      const retry: WriteOutcome[] = [];
      for (const o of outcomes) {
        if (isRetryable(o) && attempt + 1 < this.maxAttempts) retry.push(o);
        else final.set(o.key, o);
      }
      if (retry.length === 0) break;
      const retryAfter = Math.max(0, ...retry.map((o) => o.retryAfterSeconds ?? 0));
      const delay = retryDelayMs(attempt, retryAfter || undefined, this.baseDelayMs, this.maxDelayMs);
      if (onLongWait && this.options.longWaitMs !== undefined && delay > this.options.longWaitMs) {
        // Paused: these records are sent again when the run resumes. Refused: they fail now.
        if (!onLongWait(delay, "retry")) for (const o of retry) final.set(o.key, o);
        break;
      }
      const started = performance.now();
      try {
        await sleep(delay, signal);
      } catch (err) {
        if (signal?.aborted) break;
        throw err;
      } finally {
        this.timings.wait += performance.now() - started;
      }
      const keys = new Set(retry.map((o) => o.key));
      pending = pending.filter((r) => keys.has(r.key));
    }
    return chunk.flatMap((r) => final.get(r.key) ?? []);
  }

  private async deliverIsolating(chunk: WriteRecord[]): Promise<WriteOutcome[]> {
    const outcomes = await this.deliver(chunk);
    if (chunk.length > 1 && outcomes.length === chunk.length && wholeFailure(outcomes) && !this.options.signal?.aborted) {
      return this.isolate(chunk, outcomes);
    }
    return outcomes;
  }

  /**
   * Bisects a chunk that failed as a whole (one error for every record). When both halves fail the
   * same way the cause is not a row (bad endpoint, auth), so it stops instead of sending every row alone.
   */
  private async isolate(chunk: WriteRecord[], failed: WriteOutcome[]): Promise<WriteOutcome[]> {
    const middle = Math.ceil(chunk.length / 2);
    const halves = [chunk.slice(0, middle), chunk.slice(middle)];
    const results = await Promise.all(halves.map((h) => this.deliver(h)));
    if (this.options.signal?.aborted) return results.flat();
    const parentError = failed[0]?.error;
    if (results.every((r) => wholeFailure(r) && r[0]?.error === parentError)) return results.flat();
    const out: WriteOutcome[] = [];
    for (let i = 0; i < halves.length; i++) {
      if (halves[i].length > 1 && wholeFailure(results[i])) out.push(...(await this.isolate(halves[i], results[i])));
      else out.push(...results[i]);
    }
    return out;
  }
}

/** Every record failed with the same error: the request failed, not individual rows. */
function wholeFailure(outcomes: WriteOutcome[]): boolean {
  if (outcomes.length === 0 || outcomes.some((o) => o.ok)) return false;
  const first = outcomes[0].error;
  return outcomes.every((o) => o.error === first);
}

// One attempt at a claimed run, in this worker: what every stage shares (the run's context, the
// loader, the stop signal, the timings and totals) and the attempt's workflow: begin, extract (which
// diffs, maps, loads and records batch by batch), report.
import "server-only";
import type { NewRows } from "@/lib/connectors/types";
import { pgPool } from "@/lib/db/client";
import type { RunContext } from "./context";
import { deliveryLedgerFor, type DeliveryLedger } from "./delivery-ledger";
import { Loader, type LongWaitCause } from "./load";
import { resetMemoryPressure } from "./memory";
import type { UpdateBinding } from "./plan/approval";
import { estimateRun } from "./run-estimate";
import { SharedRateBudget } from "./rate-limit";
import { reportRun } from "./run-report";
import { resetCountersForRetry, saveWriteTarget, setRunStatus, type RunTimings, type RunTotals } from "./run-store";
import { engineSettings } from "./settings";

/**
 * "waiting": paused for the destination; the caller queues it again for `RunPause.until`.
 * "needs_approval": stopped before its first write (a live rolling run: before a micro-batch) by its sync's guard; it waits, with no job, for an approve or a cancel.
 */
/** "over_share": not claimed, its workspace had its share of runs running (WORKSPACE_MAX_ACTIVE_RUNS). */
export type RunResult = "success" | "failed" | "canceled" | "requeue" | "busy" | "over_share" | "skipped" | "waiting" | "needs_approval";

/** Why and until when a run paused. */
export interface RunPause {
  until: Date;
  cause: LongWaitCause;
  /** Retry pauses in a row without a row delivered, this one included. */
  retryWaits: number;
}

/** How a kind of run (general, test) reads and what it touches besides its own records. */
export interface RunStrategy {
  /** Records go to the destination in the stream's chunks when it supports them; else one per request. */
  readonly batchRequests: boolean;
  /** The run moves the sync's change tracking, cursor and status. */
  readonly tracksSync: boolean;
  /** Reads the model and sends, batch by batch, until done or stopped. */
  extract(attempt: RunAttempt): Promise<void>;
}

/** Why a run stopped early; anything else thrown is a failure. */
export class StopSignal extends Error {
  constructor(readonly reason: "canceled" | "shutdown" | "disabled" | "waiting" | "approval") {
    super(reason);
  }
}

export class RunAttempt {
  readonly pool = pgPool();
  /** query, diff and record are this attempt's own stages; load and wait are the loader's. Carried over from earlier attempts. */
  readonly timings: RunTimings;
  /** The run's record totals after the last batch this attempt recorded. */
  totals: RunTotals;
  /** Rows delivered in this attempt: a delivered row ends a streak of retry pauses. */
  delivered = 0;
  /** Batches are numbered in read order (the cursor advances over a gap-free prefix of them). */
  nextSeq = 0;
  readonly loader: Loader;
  /** Set by the extract (a first sync: true); the writes of pass-through and of the loader share it. */
  readonly newRows: NewRows = { likely: false };
  /** Destinations whose writes are not idempotent: the keys and ledger of their deliveries. */
  readonly ledger?: DeliveryLedger;
  /** An approved run's updates, checked before they are written (plan/approval.ts); null for any other run. */
  updates: UpdateBinding | null = null;
  /**
   * The run whose states the diff takes as sent already and delete detection as not gone: this run,
   * whose earlier attempts' rows a resumed attempt need not send again (a change since then goes with
   * the next run). A live sync's backfill sets 0: its read is a whole new snapshot whose changes since
   * an earlier attempt no later read would bring (the stream starts after it), so those states are
   * compared like any other (live/live-run.ts).
   */
  ownStatesRunId: number;
  private readonly controller = new AbortController();
  private failure: unknown;
  /** Set when a long wait for the destination stopped this attempt. */
  private pauseRequest?: { untilMs: number; waitMs: number; cause: LongWaitCause; retry: boolean };
  private readonly writeAttempts = engineSettings.writeAttempts;

  constructor(
    readonly ctx: RunContext,
    readonly strategy: RunStrategy,
    /** Started before (crash, graceful stop, pause): this attempt resumes it. */
    readonly resumed: boolean,
  ) {
    this.timings = { ...ctx.timings };
    this.ownStatesRunId = ctx.run.id;
    this.totals = { totalRows: ctx.run.totalRows, successfulRows: ctx.run.successfulRows, failedRows: ctx.run.failedRows };
    // A connector call past its deadline fails the attempt (with the sentence naming the call).
    ctx.calls.onOverrun((err) => this.fail(err));
    const { rate, stream } = ctx;
    const longWaitMs = engineSettings.releaseWaitMs;
    const ledger = (this.ledger = deliveryLedgerFor(ctx, this.pool, strategy.tracksSync));
    this.loader = new Loader({
      destination: ctx.destination,
      config: ctx.destinationConfig,
      stream,
      batch: strategy.batchRequests && stream.batch_support,
      batchSize: stream.batch_size,
      concurrency: rate.concurrency,
      budget: rate.limit > 0 ? new SharedRateBudget(this.pool, `destination:${ctx.sync.destinationId}`, rate, longWaitMs) : undefined,
      signal: this.controller.signal,
      maxAttempts: this.writeAttempts,
      longWaitMs,
      onLongWait: (waitMs, cause) => this.pauseFor(waitMs, cause),
      onDelivered: ledger && ((records) => ledger.delivered(records)),
      newRows: this.newRows,
    });
  }

  /** The attempt: begin, extract → diff → map → load → record per batch, report. */
  async execute(): Promise<RunResult> {
    await this.begin();
    try {
      await this.strategy.extract(this);
    } catch (err) {
      this.fail(err);
    }
    return reportRun(this);
  }

  private async begin(): Promise<void> {
    const { ctx } = this;
    resetMemoryPressure();
    // A retried full read re-reads every row, so its read counters restart.
    const fullRead = !ctx.sync.cursorField || ctx.sync.syncMode === "full_refresh";
    if (this.resumed && fullRead) this.totals = await resetCountersForRetry(ctx.run.id);
    await setRunStatus(this.pool, ctx.run.id, "querying");
    // Beside the read, never in its way: progress is indeterminate until (unless) it lands.
    if (this.strategy.tracksSync) void estimateRun(ctx, this.signal);
    await saveWriteTarget(ctx.run.id, {
      destination: ctx.destination.definition.name,
      stream: ctx.stream.name,
      upsert: (ctx.stream.primary_key?.length ?? 0) > 0,
      mode: ctx.sync.writeMode,
    });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** True once the attempt stopped or failed: no more batches. */
  get halted(): boolean {
    return this.signal.aborted || this.failure !== undefined;
  }

  /** The first real error, if any. */
  get failed(): unknown {
    return this.failure;
  }

  /** Remembers the first real error; errors caused by our own stop (cancel, shutdown) are not failures. */
  fail(err: unknown): void {
    if (err instanceof StopSignal || this.signal.reason instanceof StopSignal) return;
    this.failure ??= err;
    if (!this.signal.aborted) this.controller.abort(err);
  }

  /**
   * Stops at the next batch boundary. A cancel, a disable or a shutdown also abandons the connector
   * calls still in flight after ENGINE_STOP_GRACE_SECONDS (a call that never answers must not keep
   * the run; one that answers meanwhile has what it delivered recorded). Waits (pause, approval) let
   * them finish: they are bounded by their deadline.
   */
  stop(reason: StopSignal["reason"]): void {
    if (!this.signal.aborted) this.controller.abort(new StopSignal(reason));
    if (reason !== "canceled" && reason !== "disabled" && reason !== "shutdown") return;
    const grace = engineSettings.stopGraceMs;
    if (grace <= 0) this.abandonCalls(reason);
    else setTimeout(() => this.abandonCalls(reason), grace).unref();
  }

  /** Every connector call in flight rejects now (the run's own stop, not a failure). */
  abandonCalls(reason: StopSignal["reason"]): void {
    this.ctx.calls.abandon(new StopSignal(reason));
  }

  stopReason(): StopSignal["reason"] | undefined {
    const reason = this.signal.reason;
    return reason instanceof StopSignal ? reason.reason : undefined;
  }

  /** A batch committed: the run's totals it returned (batches commit in parallel: keep the latest). */
  noteTotals(totals: RunTotals): void {
    if (totals.totalRows >= this.totals.totalRows) this.totals = totals;
  }

  /**
   * A long wait for the destination: stop here and resume after it (recorded rows are not sent
   * again). Retry pauses without a row delivered in between are bounded like write attempts; past
   * that it refuses, and the records fail with the destination's answer.
   */
  private pauseFor(waitMs: number, cause: LongWaitCause): boolean {
    if (cause === "retry" && this.retryWaitsBefore() + 1 >= this.writeAttempts) return false;
    const untilMs = Date.now() + waitMs;
    const request = (this.pauseRequest ??= { untilMs, waitMs, cause, retry: false });
    // Several requests may ask at once: the run waits for the longest.
    if (untilMs > request.untilMs) Object.assign(request, { untilMs, waitMs, cause });
    if (cause === "retry") request.retry = true;
    this.stop("waiting");
    return true;
  }

  /** Retry pauses in a row before this attempt; a delivered row starts the count again. */
  private retryWaitsBefore(): number {
    return this.delivered > 0 ? 0 : this.ctx.run.retryWaits;
  }

  /** Set when the attempt stopped to wait for its destination; the wait counts as waiting in its timings. */
  get pause(): (RunPause & { waitMs: number }) | undefined {
    const request = this.pauseRequest;
    if (!request) return undefined;
    return {
      until: new Date(request.untilMs),
      cause: request.cause,
      retryWaits: this.retryWaitsBefore() + (request.retry ? 1 : 0),
      waitMs: request.waitMs,
    };
  }

  /** Whole milliseconds for sync_runs.timings; `extraRecord` is a batch's bookkeeping still under way. */
  roundedTimings(extraRecord = 0): RunTimings {
    const { timings: t, loader } = this;
    return {
      query: Math.round(t.query),
      diff: Math.round(t.diff),
      load: Math.round(t.load + loader.timings.load),
      wait: Math.round(t.wait + loader.timings.wait),
      record: Math.round(t.record + extraRecord),
    };
  }
}

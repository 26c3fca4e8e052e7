// The run pipeline: extract (stream the model in batches) → diff (set-wise against sync_states) →
// map → load → record (one transaction per batch: records, states, counters, cursor). Up to
// ENGINE_BATCHES_IN_FLIGHT batches are diffed/loaded while the next one is read; records commit in
// read order so the saved cursor never runs ahead of what was recorded.
import type { Pool, PoolClient } from "pg";
import type { FingerprintedBatch, LogPart, ReadOptions, RecordLog, Row, WriteRecord } from "@/lib/connectors/types";
import { pgPool, prisma } from "@/lib/db/client";
import { COPY_NULL, copyEscape, CopyInput } from "@/lib/connectors/shared/copy";
import { logger } from "@/lib/logger";
import type { SyncRun } from "@/lib/generated/prisma/client";
import type { SyncRecordAction, SyncRunStatus } from "@/lib/generated/prisma/enums";
import { loadRunContext, RunSetupError, type RunContext } from "./context";
import { allInserts, canonicalJson, classifyBatch, fingerprint, hasStates, keyText, primaryKeyOf, rowJson, type DiffClass } from "./diff";
import { KeySet } from "./key-set";
import { Loader, type LongWaitCause } from "./load";
import { relieveMemoryPressure, resetMemoryPressure } from "./memory";
import { runLockKey, tryLock, unlock } from "./locks";
import { deletePayload, MappingError } from "@/lib/sync-config/mapping";
import { SharedRateBudget } from "./rate-limit";
import { failureLog, storedLog, unsentLog, writeAction, type WriteTarget } from "./record-logs";
import { runStatusesAllowing, syncStatusAfterRun, TERMINAL_RUN_STATUSES } from "./transitions";

export const BATCH_SIZE = Number(process.env.ENGINE_BATCH_SIZE ?? 5000);
const BATCHES_IN_FLIGHT = Math.max(1, Number(process.env.ENGINE_BATCHES_IN_FLIGHT ?? 3));
/** A crashed run is handed to another worker at most this many times before it fails. */
export const MAX_RUN_ATTEMPTS = Number(process.env.ENGINE_MAX_RUN_ATTEMPTS ?? 3);
const STATUS_POLL_MS = Number(process.env.ENGINE_STATUS_POLL_MS ?? 1000);
/**
 * A wait for the destination (rate budget, Retry-After, backoff) longer than this many seconds frees
 * the worker: the run pauses and goes back to the queue to start after the wait, so one tenant's slow
 * destination cannot hold the workers every workspace shares.
 */
export function releaseWaitMs(env: NodeJS.ProcessEnv = process.env): number {
  const seconds = Number(env.ENGINE_RELEASE_WAIT_SECONDS ?? 10);
  return (Number.isFinite(seconds) && seconds >= 0 ? seconds : 10) * 1000;
}
/** Test runs pick one random row among at most this many. */
const TEST_SAMPLE_ROWS = 10_000;
/** Longest stretch of synchronous mapping before the pipeline gives the event loop a turn. */
const YIELD_AFTER_MS = 20;

/** Why a run that was stopped from outside ended failed (behaviour.md 7). */
export const CANCELED_ERROR = "Canceled before it finished; the rows sent until then are in its records.";
export const DISABLED_ERROR = "The sync was disabled before the run finished; the rows sent until then are in its records.";

/** "waiting": paused for the destination; the caller queues it again for `RunPause.until`. */
export type RunResult = "success" | "failed" | "canceled" | "requeue" | "busy" | "skipped" | "waiting";

/** Why and until when a run paused. */
export interface RunPause {
  until: Date;
  cause: LongWaitCause;
  /** Retry pauses in a row without a row delivered, this one included. */
  retryWaits: number;
}

export interface Timings {
  query: number;
  diff: number;
  load: number;
  wait: number;
  /** Bookkeeping: the per-batch transaction of records, states, counters and cursor. */
  record: number;
}

/** Why a run stopped early; anything else thrown is a failure. */
class StopSignal extends Error {
  constructor(readonly reason: "canceled" | "shutdown" | "disabled" | "waiting") {
    super(reason);
  }
}

interface Counters {
  totalQueryRows: number;
  processedRows: number;
  totalRows: number;
  skippedRows: number;
  successfulRows: number;
  failedRows: number;
  duplicateRows: number;
}

const zeroCounters = (): Counters => ({
  totalQueryRows: 0,
  processedRows: 0,
  totalRows: 0,
  skippedRows: 0,
  successfulRows: 0,
  failedRows: 0,
  duplicateRows: 0,
});

/** A row on its way through one batch. */
interface Item {
  key: string;
  /** JSON of the source row: fingerprinted and stored as the record. */
  json: string;
  fingerprint: string;
  /**
   * The row itself, kept only when no diff query comes in between: otherwise it is parsed back from
   * `json` if it is sent, so unchanged rows die young instead of waiting out the diff in the old generation.
   */
  row?: Row;
  action: SyncRecordAction;
}

/** A batch's trackable rows before the diff; `item` builds the i-th one's Item once it is to be sent. */
interface Prepared {
  keys: string[];
  fingerprints: string[];
  item: (index: number, action: SyncRecordAction) => Item;
}

interface Outcome {
  item: Item;
  ok: boolean;
  error?: string;
  /** Stored with the record when set (scrubbed); see record-logs.ts for when it is not. */
  log?: RecordLog;
}

const ACTION_OF: Record<Exclude<DiffClass, "d">, SyncRecordAction> = { i: "destination_insert", u: "destination_update" };

/** Conditional status change through the transition table; false when the run moved elsewhere meanwhile. */
export async function setRunStatus(
  db: Pool | PoolClient,
  runId: number,
  to: SyncRunStatus,
  extra: { error?: string | null; finished?: boolean } = {},
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE sync_runs SET status = $2::sync_run_status, updated_at = now(),
       error = CASE WHEN $4::boolean THEN $5 ELSE error END,
       finished_at = CASE WHEN $6::boolean THEN now() ELSE finished_at END
     WHERE id = $1 AND status = ANY($3::sync_run_status[])`,
    [runId, to, runStatusesAllowing(to), extra.error !== undefined, extra.error ?? null, extra.finished ?? false],
  );
  return (rowCount ?? 0) > 0;
}

class RunExecution {
  private readonly pool = pgPool();
  private readonly timings: Timings;
  private readonly counters = zeroCounters();
  /** Keys read in this run (duplicates, delete detection). */
  private readonly seen = new KeySet();
  private readonly controller = new AbortController();
  private readonly loader: Loader;
  private readonly test: boolean;
  private readonly fullRead: boolean;
  /** Batches are numbered in read order; the cursor only advances over a gap-free prefix of recorded ones. */
  private nextSeq = 0;
  private cursorNext = 0;
  private readonly recorded = new Map<number, string | undefined>();
  private cursorChain: Promise<void> = Promise.resolve();
  private failure: unknown;
  private loading = false;
  /** The sync tracked no row when this attempt started: batches need no diff query. */
  private noStates = false;
  /** Set when a long wait for the destination stopped this attempt. */
  private pauseRequest?: { untilMs: number; waitMs: number; cause: LongWaitCause; retry: boolean };
  private readonly writeAttempts = Number(process.env.ENGINE_WRITE_ATTEMPTS ?? 5);

  constructor(
    private readonly ctx: RunContext,
    private readonly resumed = false,
  ) {
    this.test = ctx.run.syncRunType === "test";
    this.fullRead = !ctx.sync.cursorField || ctx.sync.syncMode === "full_refresh";
    const stored = (ctx.run.timings ?? {}) as Partial<Timings>;
    this.timings = { query: stored.query ?? 0, diff: stored.diff ?? 0, load: stored.load ?? 0, wait: stored.wait ?? 0, record: stored.record ?? 0 };
    const { rate, stream } = ctx;
    const longWaitMs = releaseWaitMs();
    this.loader = new Loader({
      destination: ctx.destination,
      config: ctx.destinationConfig,
      stream,
      // Test runs go record by record so the one request and response are exactly what a sync sends.
      batch: !this.test && stream.batch_support,
      batchSize: stream.batch_size,
      concurrency: rate.concurrency,
      budget: rate.limit > 0 ? new SharedRateBudget(this.pool, `destination:${ctx.sync.destinationId}`, rate, longWaitMs) : undefined,
      signal: this.controller.signal,
      timings: this.timings,
      maxAttempts: this.writeAttempts,
      longWaitMs,
      onLongWait: (waitMs, cause) => this.pauseFor(waitMs, cause),
    });
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
    if (!this.signal.aborted) this.controller.abort(new StopSignal("waiting"));
    return true;
  }

  /** Retry pauses in a row before this attempt; a delivered row starts the count again. */
  private retryWaitsBefore(): number {
    return this.counters.successfulRows > 0 ? 0 : this.ctx.run.retryWaits;
  }

  /** Set when execute() returned "waiting". */
  get pause(): RunPause | undefined {
    const request = this.pauseRequest;
    if (!request) return undefined;
    return { until: new Date(request.untilMs), cause: request.cause, retryWaits: this.retryWaitsBefore() + (request.retry ? 1 : 0) };
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Remembers the first real error; errors caused by our own stop (cancel, shutdown) are not failures. */
  private fail(err: unknown): void {
    if (err instanceof StopSignal || this.signal.reason instanceof StopSignal) return;
    this.failure ??= err;
    if (!this.signal.aborted) this.controller.abort(err);
  }

  stop(reason: StopSignal["reason"]): void {
    if (!this.controller.signal.aborted) this.controller.abort(new StopSignal(reason));
  }

  private stopReason(): StopSignal["reason"] | undefined {
    const reason = this.controller.signal.reason;
    return reason instanceof StopSignal ? reason.reason : undefined;
  }

  async execute(): Promise<RunResult> {
    const { ctx } = this;
    resetMemoryPressure();
    if (this.resumed && this.fullRead) await this.resetForRetry();
    await setRunStatus(this.pool, ctx.run.id, "querying");
    await this.saveWriteTarget();
    try {
      if (this.test) await this.runTest();
      else await this.runGeneral();
    } catch (err) {
      this.fail(err);
    }
    await this.cursorChain.catch((err) => this.fail(err));
    return this.finish();
  }

  /** What this run writes to: the logs of records that store none are derived from it (record-logs.ts). */
  private async saveWriteTarget(): Promise<void> {
    const { ctx } = this;
    const target: WriteTarget = {
      destination: ctx.destination.definition.name,
      stream: ctx.stream.name,
      upsert: (ctx.stream.primary_key?.length ?? 0) > 0,
    };
    await this.pool.query("UPDATE sync_runs SET write_target = $2::jsonb WHERE id = $1", [ctx.run.id, JSON.stringify(target)]);
  }

  /** A retried full read re-reads everything, so read counters restart; record counters come from the records. */
  private async resetForRetry(): Promise<void> {
    await this.pool.query(
      `UPDATE sync_runs r SET total_query_rows = 0, processed_rows = 0, skipped_rows = 0, duplicate_rows = 0,
         total_rows = c.total, successful_rows = c.ok, failed_rows = c.failed, updated_at = now()
       FROM (SELECT count(*)::int AS total, count(*) FILTER (WHERE status = 'success')::int AS ok,
                    count(*) FILTER (WHERE status = 'failed')::int AS failed
             FROM sync_records WHERE sync_run_id = $1) c
       WHERE r.id = $1`,
      [this.ctx.run.id],
    );
  }

  private async runGeneral(): Promise<void> {
    const { ctx } = this;
    const cursorField = ctx.sync.syncMode === "incremental" ? (ctx.sync.cursorField ?? undefined) : undefined;
    // Checked per attempt: a resumed attempt finds the states its predecessor recorded and diffs.
    this.noStates = !(await hasStates(this.pool, ctx.sync.id));
    const options: ReadOptions = {
      query: ctx.model.query,
      batchSize: BATCH_SIZE,
      cursorField,
      cursorValue: cursorField ? ctx.sync.currentCursorField : undefined,
      signal: this.signal,
    };
    // Sources that fingerprint rows themselves spare us parsing the rows that turn out unchanged.
    const iterable: AsyncIterable<ReadBatch> = ctx.source.readFingerprinted
      ? ctx.source.readFingerprinted(ctx.sourceConfig, { ...options, fingerprint: { seed: ctx.fingerprintSeed, primaryKey: ctx.model.primaryKey } })
      : ctx.source.read(ctx.sourceConfig, options);
    const iterator = iterable[Symbol.asyncIterator]();
    const inflight = new Set<Promise<void>>();
    try {
      for (;;) {
        if (this.signal.aborted || this.failure) break;
        const started = performance.now();
        const next = await iterator.next();
        this.timings.query += performance.now() - started;
        if (next.done) break;
        const batch = next.value;
        const cursorValue = cursorField && batch.length > 0 ? cursorText(rowAt(batch, batch.length - 1)[cursorField]) : undefined;
        const task = this.processRows(this.nextSeq++, batch, cursorValue).catch((err) => this.fail(err));
        inflight.add(task);
        void task.finally(() => inflight.delete(task));
        while (inflight.size >= BATCHES_IN_FLIGHT) await Promise.race(inflight);
      }
    } catch (err) {
      this.fail(err);
    } finally {
      await Promise.all(inflight);
      // Stops the source's cursor when we leave early; harmless when it already finished.
      await iterator.return?.().catch(() => undefined);
    }
    if (!this.signal.aborted && !this.failure && this.fullRead && ctx.sync.detectDeletes) await this.detectDeletes();
  }

  /** Prepares rows (key, fingerprint, duplicates) synchronously, then diffs, maps, loads, records. */
  private async processRows(seq: number, batch: ReadBatch, cursorValue: string | undefined): Promise<void> {
    const started = performance.now();
    const delta = zeroCounters();
    delta.totalQueryRows = batch.length;
    delta.processedRows = batch.length;
    const { keys, fingerprints, item } = this.prepare(batch, delta);
    const { classes, storedFingerprints } = this.noStates
      ? allInserts(keys.length)
      : await classifyBatch(this.pool, {
          syncId: this.ctx.sync.id,
          runId: this.ctx.run.id,
          keys,
          fingerprints,
          fullRefresh: this.ctx.sync.syncMode === "full_refresh",
        });
    const toSend: Item[] = [];
    const rebaselined: Item[] = [];
    // Only a source's own fingerprints can meet a state holding the engine's fingerprint of a row.
    const sourceFingerprints = !Array.isArray(batch);
    for (let index = 0; index < keys.length; index++) {
      const c = classes.get(index);
      if (c === undefined) delta.skippedRows++;
      else if (c !== "d") {
        const next = item(index, ACTION_OF[c]);
        const stored = sourceFingerprints ? storedFingerprints.get(index) : undefined;
        if (stored !== undefined && fingerprint(this.ctx.fingerprintSeed, next.json) === stored) {
          delta.skippedRows++;
          rebaselined.push(next);
        } else toSend.push(next);
      }
    }
    this.timings.diff += performance.now() - started;
    const outcomes = await this.send(toSend);
    // A stop (pause, shutdown) can leave rows of the batch unsent: then the cursor must not pass it.
    await this.record(seq, outcomes, delta, cursorValue, rebaselined, outcomes.length === toSend.length);
  }

  /**
   * Keys and fingerprints of the batch's trackable rows (blank and repeated keys are counted and
   * dropped), and how to make the Item of the i-th of them once it is known to be sent.
   */
  private prepare(batch: ReadBatch, delta: Counters): Prepared {
    const track = (key: string | null): key is string => {
      if (key === null) delta.skippedRows++;
      else if (this.seen.has(key)) delta.duplicateRows++;
      else {
        this.seen.add(key);
        return true;
      }
      return false;
    };
    // Separate functions: a closure over the fingerprinted batch must not keep plain rows alive too.
    return Array.isArray(batch) ? this.prepareRows(batch, track) : this.prepareFingerprinted(batch, track);
  }

  private prepareRows(batch: Row[], track: (key: string | null) => key is string): Prepared {
    const keys: string[] = [];
    const fingerprints: string[] = [];
    const jsons: string[] = [];
    // The rows themselves are kept only when no diff query comes in between: otherwise a sent row is
    // parsed back from its JSON, so unchanged rows die young instead of waiting out the diff.
    const rows: Row[] | undefined = this.noStates ? [] : undefined;
    for (const row of batch) {
      const key = primaryKeyOf(row, this.ctx.model.primaryKey);
      if (!track(key)) continue;
      const json = rowJson(row);
      keys.push(key);
      jsons.push(json);
      fingerprints.push(fingerprint(this.ctx.fingerprintSeed, json));
      rows?.push(row);
    }
    return { keys, fingerprints, item: (i, action) => ({ key: keys[i], json: jsons[i], fingerprint: fingerprints[i], row: rows?.[i], action }) };
  }

  /** Fingerprinted by the source: a row is parsed only when it is sent. */
  private prepareFingerprinted(batch: FingerprintedBatch, track: (key: string | null) => key is string): Prepared {
    const keys: string[] = [];
    const fingerprints: string[] = [];
    const at: number[] = [];
    for (let i = 0; i < batch.length; i++) {
      const key = keyText(batch.keyValues[i]);
      if (!track(key)) continue;
      keys.push(key);
      fingerprints.push(batch.fingerprints[i]);
      at.push(i);
    }
    return {
      keys,
      fingerprints,
      // Made after the diff, for sent rows only: the parsed row is kept for the mapping.
      item: (i, action) => {
        const row = batch.row(at[i]);
        return { key: keys[i], json: rowJson(row), fingerprint: fingerprints[i], row, action };
      },
    };
  }

  /** Maps and loads; a row that fails to map fails alone without being sent. */
  private async send(items: Item[]): Promise<Outcome[]> {
    if (items.length === 0) return [];
    const now = new Date();
    const results: Outcome[] = [];
    const records: WriteRecord[] = [];
    const byKey = new Map<string, Item>();
    const upsert = (this.ctx.stream.primary_key?.length ?? 0) > 0;
    let turn = performance.now();
    for (const item of items) {
      // Templates render synchronously (up to their time limit each): between rows, let the rest of
      // the process (the API, when the worker shares the web process) have the event loop.
      if (performance.now() - turn > YIELD_AFTER_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        turn = performance.now();
      }
      let payload: Row;
      if (item.action === "destination_delete") {
        payload = deletePayload(this.ctx.mapping, this.ctx.model.primaryKey, item.key);
      } else {
        try {
          // Rows are JSON-safe (connectors guarantee it), so the parsed JSON is the row as read.
          payload = this.ctx.mapping.map(item.row ?? (JSON.parse(item.json) as Row), now);
        } catch (err) {
          if (!(err instanceof MappingError)) throw err;
          results.push({ item, ok: false, error: err.message, log: storedLog(unsentLog(err.message), false, this.ctx.scrub) });
          continue;
        }
      }
      // Destinations with a primary key get upserts, so a retried or re-sent row never duplicates.
      records.push({ key: item.key, action: writeAction(item.action, upsert), payload });
      byKey.set(item.key, item);
    }
    if (records.length > 0) {
      const outcomes = await this.loader.load(records);
      const stream = this.ctx.stream.name;
      // The records of one request share their response: scrubbed once.
      const memo = new WeakMap<LogPart, LogPart>();
      for (const record of records) {
        const o = outcomes.get(record.key);
        if (!o) continue; // never sent: the run stopped first
        const error = o.ok ? undefined : this.ctx.scrub(o.error ?? "The destination refused the record.");
        // A success without the destination's own log (SQL) stores none: it is derived on read.
        const log = o.log ?? (error === undefined ? undefined : failureLog(record.action, stream, record.payload, error));
        results.push({ item: byKey.get(record.key) as Item, ok: o.ok, error, log: log && storedLog(log, o.ok, this.ctx.scrub, memo) });
      }
    }
    return results;
  }

  /**
   * Called after batch `seq` committed. Batches commit in parallel, so the saved cursor moves only to
   * the last batch of the gap-free recorded prefix: a failed or unfinished batch holds it back.
   */
  private advanceCursor(seq: number, cursorValue: string | undefined): void {
    this.recorded.set(seq, cursorValue);
    let latest: string | undefined;
    while (this.recorded.has(this.cursorNext)) {
      latest = this.recorded.get(this.cursorNext) ?? latest;
      this.recorded.delete(this.cursorNext);
      this.cursorNext++;
    }
    if (latest === undefined || this.test) return;
    const value = latest;
    this.cursorChain = this.cursorChain.then(async () => {
      await this.pool.query("UPDATE syncs SET current_cursor_field = $2, updated_at = now() WHERE id = $1", [this.ctx.sync.id, value]);
    });
  }

  /**
   * One transaction: this batch's records, the new states (accepted rows only) and counters. Later
   * batches may commit first; a crash in between only means re-reading rows already recorded.
   */
  private async record(
    seq: number,
    outcomes: Outcome[],
    delta: Counters,
    cursorValue: string | undefined,
    rebaselined: Item[] = [],
    complete = true,
  ): Promise<void> {
    const started = performance.now();
    const { run, sync } = this.ctx;
    if (rebaselined.length > 0 && !this.test) await this.rebaseline(rebaselined);
    for (const o of outcomes) {
      delta.totalRows++;
      if (o.ok) delta.successfulRows++;
      else delta.failedRows++;
    }
    // A batch with nothing sent (all unchanged) only moves the counters: one statement, no transaction.
    const db: Pool | PoolClient = outcomes.length > 0 ? await this.pool.connect() : this.pool;
    const client = db as PoolClient;
    try {
      if (outcomes.length > 0) {
        await client.query("BEGIN");
        // Holds off a concurrent delete of the run (its workspace's deletion) until this batch has
        // committed, so the delete triggers find its records and states: bookkeeping has no foreign
        // keys. A run already deleted writes nothing and stops.
        const held = await client.query("SELECT 1 FROM sync_runs WHERE id = $1 FOR KEY SHARE", [run.id]);
        if (held.rowCount === 0) {
          this.stop("canceled");
          throw new StopSignal("canceled");
        }
        // COPY is the cheapest way in; no conflict is possible: rows this run already recorded are
        // classified "d" and never reach this point again, and only the lock holder records.
        const input = new CopyInput();
        const ids = `${sync.id}\t${run.id}\t`;
        for (const o of outcomes) {
          const logs = o.log === undefined ? COPY_NULL : copyEscape(JSON.stringify(o.log));
          input.push(
            `${ids}${copyEscape(o.item.key)}\t${copyEscape(o.item.json)}\t${o.ok ? "success" : "failed"}\t${o.item.action}\t${
              o.error === undefined ? COPY_NULL : copyEscape(o.error)
            }\t${logs}\n`,
          );
        }
        await input.copy(client, "COPY sync_records (sync_id, sync_run_id, primary_key, record, status, action, error, logs) FROM STDIN");
        if (!this.test) await this.writeStates(client, outcomes);
      }
      await db.query(
        `UPDATE sync_runs SET total_query_rows = total_query_rows + $2, processed_rows = processed_rows + $3,
           total_rows = total_rows + $4, skipped_rows = skipped_rows + $5, successful_rows = successful_rows + $6,
           failed_rows = failed_rows + $7, duplicate_rows = duplicate_rows + $8, timings = $9::jsonb, updated_at = now()
         WHERE id = $1`,
        [
          run.id,
          delta.totalQueryRows,
          delta.processedRows,
          delta.totalRows,
          delta.skippedRows,
          delta.successfulRows,
          delta.failedRows,
          delta.duplicateRows,
          JSON.stringify(this.roundedTimings(performance.now() - started)),
        ],
      );
      if (outcomes.length > 0) await client.query("COMMIT");
    } catch (err) {
      if (outcomes.length > 0) await client.query("ROLLBACK").catch(() => undefined);
      throw err;
    } finally {
      if (outcomes.length > 0) client.release();
      this.timings.record += performance.now() - started;
    }
    for (const key of Object.keys(delta) as (keyof Counters)[]) this.counters[key] += delta[key];
    if (complete) this.advanceCursor(seq, cursorValue);
    relieveMemoryPressure();
    if (!this.loading) {
      this.loading = true;
      await setRunStatus(this.pool, run.id, "in_progress");
    }
  }

  /**
   * Unchanged rows whose state still held the engine's own fingerprint (md5 of the seed and the
   * row's JSON, what every sync stored before its source fingerprinted rows itself) take the
   * source's fingerprint without being sent, so a sync does not re-send every row once when its
   * source starts fingerprinting. Idempotent, so it needs no transaction with the counters.
   */
  private async rebaseline(items: Item[]): Promise<void> {
    await this.pool.query(
      `UPDATE sync_states s SET fingerprint = x.f, updated_at = now()
       FROM ROWS FROM (json_array_elements_text($2::json), json_array_elements_text($3::json)) AS x(k, f)
       WHERE s.sync_id = $1 AND s.primary_key = x.k`,
      [this.ctx.sync.id, JSON.stringify(items.map((i) => i.key)), JSON.stringify(items.map((i) => i.fingerprint))],
    );
  }

  /**
   * Accepted rows store their new fingerprint; failed rows keep the last delivered one ('' when
   * never delivered) with last_status failed, so the next run retries them. Deleted rows lose their state.
   */
  private async writeStates(client: PoolClient, outcomes: Outcome[]): Promise<void> {
    const keys: string[] = [];
    const fps: string[] = [];
    const statuses: string[] = [];
    const deleted: string[] = [];
    for (const o of outcomes) {
      if (o.ok && o.item.action === "destination_delete") {
        deleted.push(o.item.key);
        continue;
      }
      keys.push(o.item.key);
      fps.push(o.ok ? o.item.fingerprint : "");
      statuses.push(o.ok ? "success" : "failed");
    }
    if (keys.length > 0 && this.noStates) {
      // The sync tracked nothing when this attempt began and keys are unique within a run, so no
      // state can conflict: COPY is several times cheaper than an upsert.
      const input = new CopyInput();
      const prefix = `${this.ctx.sync.id}\t`;
      const suffix = `\t${this.ctx.run.id}\n`;
      for (let i = 0; i < keys.length; i++) input.push(`${prefix}${copyEscape(keys[i])}\t${fps[i]}\t${statuses[i]}${suffix}`);
      await input.copy(client, "COPY sync_states (sync_id, primary_key, fingerprint, last_status, last_run_id) FROM STDIN");
    } else if (keys.length > 0) {
      await client.query(
        `INSERT INTO sync_states (sync_id, primary_key, fingerprint, last_status, last_run_id, updated_at)
         SELECT $1, x.k, x.f, x.s::sync_record_status, $2, now() FROM unnest($3::text[], $4::text[], $5::text[]) AS x(k, f, s)
         ON CONFLICT (sync_id, primary_key) DO UPDATE SET
           fingerprint = CASE WHEN EXCLUDED.last_status = 'success' THEN EXCLUDED.fingerprint ELSE sync_states.fingerprint END,
           last_status = EXCLUDED.last_status, last_run_id = EXCLUDED.last_run_id, updated_at = now()`,
        [this.ctx.sync.id, this.ctx.run.id, keys, fps, statuses],
      );
    }
    if (deleted.length > 0) {
      await client.query("DELETE FROM sync_states WHERE sync_id = $1 AND primary_key = ANY($2::text[])", [this.ctx.sync.id, deleted]);
    }
  }

  /** Rows tracked in sync_states but absent from this full read: destination_delete records. */
  private async detectDeletes(): Promise<void> {
    const { sync, run } = this.ctx;
    let after = "";
    for (;;) {
      if (this.signal.aborted || this.failure) return;
      const { rows } = await this.pool.query<{ primary_key: string; fingerprint: string; last_run_id: number }>(
        `SELECT primary_key, fingerprint, last_run_id FROM sync_states
         WHERE sync_id = $1 AND primary_key > $2 ORDER BY primary_key LIMIT $3`,
        [sync.id, after, BATCH_SIZE],
      );
      if (rows.length === 0) return;
      after = rows[rows.length - 1].primary_key;
      const gone = rows.filter((r) => !this.seen.has(r.primary_key) && r.last_run_id !== run.id);
      // Never delivered: nothing to delete in the destination, only the state to forget.
      const undelivered = gone.filter((r) => r.fingerprint === "").map((r) => r.primary_key);
      if (undelivered.length > 0) {
        await this.pool.query("DELETE FROM sync_states WHERE sync_id = $1 AND primary_key = ANY($2::text[])", [sync.id, undelivered]);
      }
      const items: Item[] = gone
        .filter((r) => r.fingerprint !== "")
        .map((r) => ({
          key: r.primary_key,
          json: canonicalJson({ [this.ctx.model.primaryKey]: r.primary_key }),
          fingerprint: r.fingerprint,
          row: {},
          action: "destination_delete" as const,
        }));
      if (items.length > 0) await this.record(this.nextSeq++, await this.send(items), zeroCounters(), undefined);
    }
  }

  /** One random row of the model, sent record by record, never touching change-tracking state. */
  private async runTest(): Promise<void> {
    const { ctx } = this;
    if (this.resumed) {
      // A test run sends one row and records it with its counters in one transaction: if an
      // interrupted attempt got that far, the run is done; sampling again could send a second row.
      const { rowCount } = await this.pool.query("SELECT 1 FROM sync_records WHERE sync_run_id = $1 LIMIT 1", [ctx.run.id]);
      if (rowCount) return;
    }
    let chosen: Row | undefined;
    let seenRows = 0;
    const started = performance.now();
    for await (const rows of ctx.source.read(ctx.sourceConfig, { query: ctx.model.query, batchSize: 1000, signal: this.signal })) {
      for (const row of rows) {
        // Reservoir sampling: every row read so far had the same chance of being chosen.
        seenRows++;
        if (Math.random() * seenRows < 1) chosen = row;
      }
      if (seenRows >= TEST_SAMPLE_ROWS) break;
    }
    this.timings.query += performance.now() - started;
    if (!chosen) return;
    const key = primaryKeyOf(chosen, ctx.model.primaryKey);
    const delta = zeroCounters();
    delta.totalQueryRows = 1;
    delta.processedRows = 1;
    if (key === null) {
      delta.skippedRows = 1;
      await this.record(this.nextSeq++, [], delta, undefined);
      return;
    }
    const json = rowJson(chosen);
    const item: Item = { key, json, fingerprint: fingerprint(ctx.fingerprintSeed, json), row: chosen, action: "destination_insert" };
    const { rows } = await this.pool.query<{ fingerprint: string }>(
      "SELECT fingerprint FROM sync_states WHERE sync_id = $1 AND primary_key = $2",
      [ctx.sync.id, key],
    );
    if (rows.length > 0 && rows[0].fingerprint !== "") item.action = "destination_update";
    await this.record(this.nextSeq++, await this.send([item]), delta, undefined);
  }

  private roundedTimings(extraRecord = 0): Timings {
    return {
      query: Math.round(this.timings.query),
      diff: Math.round(this.timings.diff),
      load: Math.round(this.timings.load),
      wait: Math.round(this.timings.wait),
      record: Math.round(this.timings.record + extraRecord),
    };
  }

  /** Final status per behaviour.md 7, the sync's status, timings. */
  private async finish(): Promise<RunResult> {
    const { run, sync } = this.ctx;
    const stop = this.stopReason();
    if (stop === "shutdown" && !this.failure) return "requeue";
    if (stop === "waiting" && !this.failure && this.pauseRequest) {
      // The time it will wait counts as waiting in the run's time breakdown.
      this.timings.wait += this.pauseRequest.waitMs;
      await this.writeTimings();
      return "waiting";
    }
    if (stop === "canceled" || stop === "disabled") {
      // Usually already failed by whoever stopped it (cancel, disable); then only the timings change.
      const error = stop === "canceled" ? CANCELED_ERROR : DISABLED_ERROR;
      // Timings and the sync's status first: whoever sees the run end sees them too.
      await this.writeTimings();
      if (!this.test && stop === "canceled") await applySyncOutcome(sync.id, "canceled");
      await setRunStatus(this.pool, run.id, "failed", { error, finished: true });
      return "canceled";
    }
    const totals = await prisma().syncRun.findUniqueOrThrow({ where: { id: run.id } });
    let error: string | null = null;
    if (this.failure) error = this.ctx.scrub(describeFailure(this.failure));
    else if (totals.totalRows > 0 && totals.successfulRows === 0) {
      error = `All ${totals.totalRows} records failed; see the run's records for each error.`;
    }
    const outcome = error ? "failed" : "success";
    await this.writeTimings();
    if (!this.test) await applySyncOutcome(sync.id, outcome);
    await setRunStatus(this.pool, run.id, outcome, { error, finished: true });
    return outcome;
  }

  private async writeTimings(): Promise<void> {
    await this.pool.query("UPDATE sync_runs SET timings = $2::jsonb WHERE id = $1", [this.ctx.run.id, JSON.stringify(this.roundedTimings())]);
  }
}

/** A read batch: rows as read (fingerprinted here) or fingerprinted by the source (rows parsed on demand). */
type ReadBatch = Row[] | FingerprintedBatch;

function rowAt(batch: ReadBatch, index: number): Row {
  return Array.isArray(batch) ? batch[index] : batch.row(index);
}

function cursorText(value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (value instanceof Date) return value.toISOString();
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

function describeFailure(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.length > 2000 ? `${message.slice(0, 2000)}…` : message;
}

/** The sync's status after a general run, through the transition table (a disabled sync stays disabled). */
export async function applySyncOutcome(syncId: number, outcome: "success" | "failed" | "canceled"): Promise<void> {
  const pool = pgPool();
  const { rows } = await pool.query<{ status: Parameters<typeof syncStatusAfterRun>[0] }>("SELECT status FROM syncs WHERE id = $1", [syncId]);
  if (rows.length === 0) return;
  const to = syncStatusAfterRun(rows[0].status, outcome);
  if (!to || to === rows[0].status) return;
  await pool.query("UPDATE syncs SET status = $2::sync_status, updated_at = now() WHERE id = $1 AND status = $3::sync_status", [
    syncId,
    to,
    rows[0].status,
  ]);
}

/**
 * Marks a run paused until its wait is over (still under its lock); the worker then queues it to
 * start then. Like a graceful stop, a pause is not an attempt. "canceled" when it ended meanwhile.
 */
async function pauseRun(run: SyncRun, pause: RunPause): Promise<RunResult> {
  const { rowCount } = await pgPool().query(
    `UPDATE sync_runs SET status = 'paused', attempts = GREATEST(attempts - 1, 0), waiting_until = $2, retry_waits = $3, updated_at = now()
     WHERE id = $1 AND status = ANY($4::sync_run_status[])`,
    [run.id, pause.until, pause.retryWaits, runStatusesAllowing("paused")],
  );
  if (!rowCount) return "canceled";
  logger.info(
    { runId: run.id, syncId: run.syncId, waitingUntil: pause.until.toISOString(), cause: pause.cause },
    "run paused: its destination asks to wait; the worker is free until then",
  );
  return "waiting";
}

export interface ExecuteOptions {
  /** Aborting with reason "shutdown" stops at a batch boundary and reports "requeue". */
  signal?: AbortSignal;
}

/**
 * Runs one sync run to its end in this process. Holds the run's advisory lock on a dedicated
 * connection throughout; returns "busy" when another live worker holds it.
 */
export async function executeRun(runId: number, options: ExecuteOptions = {}): Promise<RunResult> {
  const pool = pgPool();
  const lockClient = await pool.connect();
  let lockKey: [number, number] | undefined;
  // The lock connection sits idle for the whole run: if the database drops it (restart, failover),
  // the lock is gone, so this attempt stops and hands the run back instead of racing another worker.
  // Without a listener the dropped connection's error would crash the whole worker process.
  let lockLost = false;
  let onLockLost = () => undefined as void;
  lockClient.on("error", (err) => {
    lockLost = true;
    logger.warn({ runId, err: err.message }, "lost the connection holding the run's lock; stopping the run");
    onLockLost();
  });
  try {
    const initial = await prisma().syncRun.findUnique({ where: { id: runId } });
    if (!initial || TERMINAL_RUN_STATUSES.includes(initial.status)) return "skipped";
    // Started before (crash or graceful stop): this attempt resumes it.
    const resumed = initial.startedAt !== null;
    lockKey = runLockKey(initial);
    if (!(await tryLock(lockClient, lockKey))) {
      lockKey = undefined;
      return "busy";
    }
    // Under the lock: claim the run (from queued, or from a running status left by a dead worker).
    const { rows } = await pool.query<{ id: number }>(
      `UPDATE sync_runs SET status = 'started', attempts = attempts + 1, started_at = COALESCE(started_at, now()),
         waiting_until = NULL, updated_at = now()
       WHERE id = $1 AND status = ANY($2::sync_run_status[]) RETURNING id`,
      [runId, [...runStatusesAllowing("started"), "querying", "in_progress"]],
    );
    if (rows.length === 0) return "skipped";
    const run = (await prisma().syncRun.findUniqueOrThrow({ where: { id: runId } })) as SyncRun;
    const sync = await prisma().sync.findUnique({ where: { id: run.syncId }, select: { status: true, deletedAt: true } });
    if (!sync || sync.deletedAt || (sync.status === "disabled" && run.syncRunType === "general")) {
      await setRunStatus(pool, runId, "canceled", { error: "The sync is disabled or deleted, so it does not run.", finished: true });
      return "canceled";
    }
    if (run.attempts > MAX_RUN_ATTEMPTS) {
      if (run.syncRunType === "general") await applySyncOutcome(run.syncId, "failed");
      await setRunStatus(pool, runId, "failed", {
        error: `The run was interrupted ${run.attempts - 1} times (worker stopped or crashed); giving up.`,
        finished: true,
      });
      return "failed";
    }
    let ctx: RunContext;
    try {
      ctx = await loadRunContext(run);
    } catch (err) {
      if (!(err instanceof RunSetupError)) throw err;
      if (run.syncRunType === "general") await applySyncOutcome(run.syncId, "failed");
      await setRunStatus(pool, runId, "failed", { error: err.message, finished: true });
      return "failed";
    }
    const execution = new RunExecution(ctx, resumed);
    const onAbort = () => execution.stop("shutdown");
    options.signal?.addEventListener("abort", onAbort, { once: true });
    if (options.signal?.aborted) onAbort();
    onLockLost = onAbort;
    if (lockLost) onAbort();
    // Cancel and disable arrive through the database; a light poll notices them between batches.
    const poll = setInterval(() => {
      pool
        .query<{ status: SyncRunStatus; sync_status: string; deleted: boolean }>(
          `SELECT r.status, s.status AS sync_status, s.deleted_at IS NOT NULL AS deleted
           FROM sync_runs r JOIN syncs s ON s.id = r.sync_id WHERE r.id = $1`,
          [runId],
        )
        .then(({ rows: [r] }) => {
          // Ended from outside (a cancel fails it): stop at the next batch boundary.
          if (!r || TERMINAL_RUN_STATUSES.includes(r.status)) execution.stop("canceled");
          else if (run.syncRunType === "general" && (r.sync_status === "disabled" || r.deleted)) execution.stop("disabled");
        })
        .catch(() => undefined);
    }, STATUS_POLL_MS);
    try {
      const result = await execution.execute();
      // A graceful stop hands the run back (still under the lock); it does not count as an attempt.
      if (result === "requeue") {
        await pool.query(
          `UPDATE sync_runs SET status = 'queued', attempts = GREATEST(attempts - 1, 0), updated_at = now()
           WHERE id = $1 AND status = ANY($2::sync_run_status[])`,
          [runId, runStatusesAllowing("queued")],
        );
      }
      if (result === "waiting") return await pauseRun(run, execution.pause as RunPause);
      return result;
    } finally {
      clearInterval(poll);
      options.signal?.removeEventListener("abort", onAbort);
      await ctx.destination.close?.(ctx.destinationConfig).catch(() => undefined);
    }
  } finally {
    if (lockKey && !lockLost) await unlock(lockClient, lockKey).catch(() => undefined);
    lockClient.release(lockLost || undefined);
  }
}

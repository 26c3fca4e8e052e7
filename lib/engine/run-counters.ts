// A run's counters and progress bookkeeping in sync_runs: record and read counters, stage timings,
// the columns its records are read back with, its estimate and its write target. Split from
// run-store.ts (which re-exports all of it) so that each file keeps one job; no status changes here.
import "server-only";
import type { Pool, PoolClient } from "pg";
import { pgPool } from "@/lib/db/client";
import { codesOtherThan } from "@/lib/engine/records/format";
import type { EstimateSource } from "@/lib/sync-config/run-estimate";
import type { WriteTarget } from "./record-logs";
import type { RunTimings } from "@/lib/sync-config/run-timings";

type Db = Pool | PoolClient;

/** What a batch adds to its run's counters. */
export interface RunCounters {
  totalQueryRows: number;
  processedRows: number;
  totalRows: number;
  skippedRows: number;
  successfulRows: number;
  failedRows: number;
  duplicateRows: number;
}

export const zeroCounters = (): RunCounters => ({
  totalQueryRows: 0,
  processedRows: 0,
  totalRows: 0,
  skippedRows: 0,
  successfulRows: 0,
  failedRows: 0,
  duplicateRows: 0,
});

/** The run's record totals, which decide its outcome. */
export interface RunTotals {
  totalRows: number;
  successfulRows: number;
  /** Records refused or not mappable (skipped records are neither these nor successes). */
  failedRows: number;
}

const totalsOf = (r: { total_rows: number; successful_rows: number; failed_rows: number } | undefined): RunTotals => ({
  totalRows: r?.total_rows ?? 0,
  successfulRows: r?.successful_rows ?? 0,
  failedRows: r?.failed_rows ?? 0,
});

/** Milliseconds per stage, summed over the run's attempts (sync_runs.timings): the one shape the API shows too. */
export type { RunTimings } from "@/lib/sync-config/run-timings";


/** How the error of a record skipped as already delivered (delivery-ledger.ts) begins: it counts as delivered. */
export const ALREADY_DELIVERED = "Already delivered with idempotency key";

/**
 * A retried full read re-reads everything, so read counters restart; record counters come from the
 * records. Returns the totals the run starts from.
 */
export async function resetCountersForRetry(runId: number): Promise<RunTotals> {
  const { rows } = await pgPool().query<{ total_rows: number; successful_rows: number; failed_rows: number }>(
    `UPDATE sync_runs r SET total_query_rows = 0, processed_rows = 0, skipped_rows = c.skipped, duplicate_rows = 0,
       total_rows = c.total, successful_rows = c.ok, failed_rows = c.failed, updated_at = now()
     -- Counted from the blocks' codes (lib/engine/records/format.ts): translate() deletes the codes of the
     -- other outcomes. Skipped as already delivered counts as delivered, as the engine counts it.
     FROM (SELECT coalesce(sum(b.size), 0)::int AS total,
                  coalesce(sum(length(translate(b.codes, $2, ''))), 0)::int AS ok,
                  coalesce(sum(b.failed), 0)::int AS failed,
                  coalesce(sum(length(translate(b.codes, $3, ''))), 0)::int AS skipped
           FROM sync_record_blocks b WHERE b.sync_run_id = $1) c
     WHERE r.id = $1 RETURNING r.total_rows, r.successful_rows, r.failed_rows`,
    [runId, codesOtherThan(["success", "delivered"]), codesOtherThan(["skipped"])],
  );
  return totalsOf(rows[0]);
}

/** Adds a batch's counters (in the batch's transaction when it has one); returns the run's new totals. */
export async function addBatchCounters(db: Db, runId: number, delta: RunCounters, timings: RunTimings): Promise<RunTotals> {
  const { rows } = await db.query<{ total_rows: number; successful_rows: number; failed_rows: number }>(
    `UPDATE sync_runs SET total_query_rows = total_query_rows + $2, processed_rows = processed_rows + $3,
       total_rows = total_rows + $4, skipped_rows = skipped_rows + $5, successful_rows = successful_rows + $6,
       failed_rows = failed_rows + $7, duplicate_rows = duplicate_rows + $8, timings = $9::jsonb, updated_at = now()
     WHERE id = $1 RETURNING total_rows, successful_rows, failed_rows`,
    [
      runId,
      delta.totalQueryRows,
      delta.processedRows,
      delta.totalRows,
      delta.skippedRows,
      delta.successfulRows,
      delta.failedRows,
      delta.duplicateRows,
      JSON.stringify(timings),
    ],
  );
  return totalsOf(rows[0]);
}

export async function writeTimings(runId: number, timings: RunTimings): Promise<void> {
  await pgPool().query("UPDATE sync_runs SET timings = $2::jsonb WHERE id = $1", [runId, JSON.stringify(timings)]);
}

/**
 * Stores the columns the run's text records are read back with (pass-through), unless an earlier
 * attempt stored others: false then, and this attempt takes the JSON path.
 */
export async function claimRecordColumns(runId: number, columns: object): Promise<boolean> {
  const { rowCount } = await pgPool().query(
    `UPDATE sync_runs SET record_columns = $2::jsonb WHERE id = $1 AND (record_columns IS NULL OR record_columns = $2::jsonb)`,
    [runId, JSON.stringify(columns)],
  );
  return rowCount === 1;
}

/**
 * What the run's progress is measured against (run-estimate.ts): `rows` is null when unknown, the
 * bound when the count stopped at it. A resumed attempt keeps the first one.
 */
export async function saveEstimate(runId: number, estimate: { source: EstimateSource; rows: number | null }): Promise<void> {
  await pgPool().query("UPDATE sync_runs SET estimated_rows = $2, estimate_source = $3 WHERE id = $1 AND estimate_source IS NULL", [
    runId,
    estimate.rows,
    estimate.source,
  ]);
}

/**
 * Rows the sync's latest successful general run read, when it read the model as it is now (the model
 * unchanged since that run started); null when there is none.
 */
export async function previousReadCount(syncId: number, runId: number, modelChangedAt: Date): Promise<number | null> {
  const { rows } = await pgPool().query<{ total_query_rows: number }>(
    `SELECT total_query_rows FROM sync_runs
      WHERE sync_id = $1 AND id <> $2 AND sync_run_type = 'general' AND status = 'success' AND started_at >= $3
      ORDER BY created_at DESC, id DESC LIMIT 1`,
    [syncId, runId, modelChangedAt],
  );
  return rows[0]?.total_query_rows ?? null;
}

/** What a run writes to: the logs of records that store none are derived from it (record-logs.ts). */
export async function saveWriteTarget(runId: number, target: WriteTarget): Promise<void> {
  await pgPool().query("UPDATE sync_runs SET write_target = $2::jsonb WHERE id = $1", [runId, JSON.stringify(target)]);
}

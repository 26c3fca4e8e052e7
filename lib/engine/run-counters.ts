// A run's counters and progress bookkeeping in sync_runs: record and read counters, stage timings,
// the columns its records are read back with, its estimate and its write target. Split from
// run-store.ts (which re-exports all of it) so that each file keeps one job; no status changes here.
import "server-only";
import type { Pool, PoolClient } from "pg";
import { sql } from "kysely";
import { pgPool } from "@/lib/db/client";
import { db, sqlBuilder, viaClient } from "@/lib/db/kysely";
import { codesOtherThan } from "@/lib/engine/records/format";
import type { EstimateSource } from "@/lib/sync-rules/run-estimate";
import type { WriteTarget } from "./record-logs";
import type { RunTimings } from "@/lib/sync-rules/run-timings";

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
export type { RunTimings } from "@/lib/sync-rules/run-timings";


/** How the error of a record skipped as already delivered (delivery-ledger.ts) begins: it counts as delivered. */
export const ALREADY_DELIVERED = "Already delivered with idempotency key";

/**
 * A retried full read re-reads everything, so read counters restart; record counters come from the
 * records. Returns the totals the run starts from.
 */
export async function resetCountersForRetry(runId: number): Promise<RunTotals> {
  // Counted from the blocks' codes (lib/engine/records/format.ts): translate() deletes the codes of the
  // other outcomes. Skipped as already delivered counts as delivered, as the engine counts it.
  const matching = (others: string) => sql<number>`coalesce(sum(length(translate(b.codes, ${others}, ''))), 0)::int`;
  const row = await db()
    .updateTable("sync_runs as r")
    .from((eb) =>
      eb
        .selectFrom("sync_record_blocks as b")
        .select([
          sql<number>`coalesce(sum(b.size), 0)::int`.as("total"),
          matching(codesOtherThan(["success", "delivered"])).as("ok"),
          sql<number>`coalesce(sum(b.failed), 0)::int`.as("failed"),
          matching(codesOtherThan(["skipped"])).as("skipped"),
        ])
        .where("b.sync_run_id", "=", runId)
        .as("c"),
    )
    .set((eb) => ({
      total_query_rows: 0,
      processed_rows: 0,
      skipped_rows: eb.ref("c.skipped"),
      duplicate_rows: 0,
      total_rows: eb.ref("c.total"),
      successful_rows: eb.ref("c.ok"),
      failed_rows: eb.ref("c.failed"),
      updated_at: sql`now()`,
    }))
    .where("r.id", "=", runId)
    .returning(["r.total_rows", "r.successful_rows", "r.failed_rows"])
    .executeTakeFirst();
  return totalsOf(row);
}

/** Adds a batch's counters (in the batch's transaction when it has one); returns the run's new totals. */
export async function addBatchCounters(client: Db, runId: number, delta: RunCounters, timings: RunTimings): Promise<RunTotals> {
  const [row] = await viaClient(
    client,
    sqlBuilder()
      .updateTable("sync_runs")
      .set((eb) => ({
        total_query_rows: eb("total_query_rows", "+", delta.totalQueryRows),
        processed_rows: eb("processed_rows", "+", delta.processedRows),
        total_rows: eb("total_rows", "+", delta.totalRows),
        skipped_rows: eb("skipped_rows", "+", delta.skippedRows),
        successful_rows: eb("successful_rows", "+", delta.successfulRows),
        failed_rows: eb("failed_rows", "+", delta.failedRows),
        duplicate_rows: eb("duplicate_rows", "+", delta.duplicateRows),
        timings: sql`${JSON.stringify(timings)}::jsonb`,
        updated_at: sql`now()`,
      }))
      .where("id", "=", runId)
      .returning(["total_rows", "successful_rows", "failed_rows"]),
  );
  return totalsOf(row);
}

export async function writeTimings(runId: number, timings: RunTimings): Promise<void> {
  await pgPool().query("UPDATE sync_runs SET timings = $2::jsonb WHERE id = $1", [runId, JSON.stringify(timings)]);
}

/**
 * Stores the columns the run's text records are read back with (lines), unless an earlier attempt
 * stored others: false then, and this attempt takes the JSON path. Whether the lines were mapped
 * (`mapped`) does not count: the records read back alike, and the fingerprints are the same.
 */
export async function claimRecordColumns(runId: number, columns: object): Promise<boolean> {
  const { rowCount } = await pgPool().query(
    `UPDATE sync_runs SET record_columns = COALESCE(record_columns, $2::jsonb)
      WHERE id = $1 AND (record_columns IS NULL OR record_columns - 'mapped' = $2::jsonb - 'mapped')`,
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
  const row = await db()
    .selectFrom("sync_runs")
    .select("total_query_rows")
    .where("sync_id", "=", syncId)
    .where("id", "<>", runId)
    .where("sync_run_type", "=", "general")
    .where("status", "=", "success")
    .where("started_at", ">=", modelChangedAt)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(1)
    .executeTakeFirst();
  return row?.total_query_rows ?? null;
}

/** What a run writes to: the logs of records that store none are derived from it (record-logs.ts). */
export async function saveWriteTarget(runId: number, target: WriteTarget): Promise<void> {
  await pgPool().query("UPDATE sync_runs SET write_target = $2::jsonb WHERE id = $1", [runId, JSON.stringify(target)]);
}

// What a general run's progress is measured against, fixed once when it first starts
// (sync_runs.estimated_rows and estimate_source). A full read expects what the last successful run
// read of the same model (previous_run, labelled so in the console). Otherwise (a first run, an
// incremental read, a changed model) the source counts the read's rows, bounded by
// ENGINE_ROW_COUNT_LIMIT rows and ENGINE_ROW_COUNT_TIMEOUT_SECONDS, under the read's own read-only
// guards: exact below the bound (count), "more than N" at it (count_bound), unknown when it ran
// out of time, failed or the source cannot count. Never a planner's guess, which was seen off by
// 50× both ways. It runs beside the read and never fails or delays the run.
import "server-only";
import type { ReadOptions, Row, SourceConnector } from "@/lib/connectors/types";
import { logger } from "@/lib/logger";
import type { EstimateSource } from "@/lib/sync-rules/run-estimate";
import type { RunContext } from "./context";
import { previousReadCount, saveEstimate } from "./run-store";
import { engineSettings } from "./settings";

export interface Estimate {
  source: EstimateSource;
  rows: number | null;
}

const UNKNOWN: Estimate = { source: "unknown", rows: null };

export async function estimateRun(ctx: RunContext, signal: AbortSignal): Promise<void> {
  const { run, sync, model } = ctx;
  if (run.estimateSource !== null) return;
  let estimate: Estimate;
  try {
    const fullRead = !sync.cursorField || sync.syncMode === "full_refresh";
    const previous = fullRead ? await previousReadCount(sync.id, run.id, model.updatedAt) : null;
    if (previous !== null) estimate = { source: "previous_run", rows: previous };
    else {
      const cursorField = fullRead ? undefined : (sync.cursorField ?? undefined);
      estimate = await countEstimate(ctx.source, ctx.sourceConfig, {
        query: model.query,
        batchSize: engineSettings.batchSize,
        cursorField,
        cursorValue: cursorField ? sync.currentCursorField : undefined,
        signal,
      });
    }
  } catch (err) {
    // Progress without an estimate says the total is unknown, which is true: the run goes on either way.
    logger.debug({ runId: run.id, err: ctx.scrub(err instanceof Error ? err.message : String(err)) }, "no row count for the run");
    estimate = UNKNOWN;
  }
  // A canceled run's estimate is nobody's concern.
  if (signal.aborted) return;
  await saveEstimate(run.id, estimate).catch((err: unknown) => logger.debug({ runId: run.id, err }, "row estimate not saved"));
}

/** The source's bounded count of the read, as an estimate; unknown when it cannot or may not count. */
export async function countEstimate(
  source: Pick<SourceConnector, "countRows">,
  config: Row,
  read: ReadOptions,
): Promise<Estimate> {
  const limit = engineSettings.rowCountLimit;
  const timeoutMs = engineSettings.rowCountTimeoutMs;
  if (!source.countRows || limit <= 0 || timeoutMs <= 0 || read.signal?.aborted) return UNKNOWN;
  const counted = await source.countRows(config, { ...read, limit, timeoutMs });
  if (counted === null) return UNKNOWN;
  return { source: counted.more ? "count_bound" : "count", rows: counted.rows };
}

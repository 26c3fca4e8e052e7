// What a general run's progress is measured against: how many rows it will read, fixed once when it
// first starts (sync_runs.estimated_rows). A full read expects what the last successful run read of
// the same model; otherwise (first run, incremental read, model changed) the source's own cheap
// estimate; with neither the console shows progress as indeterminate. It runs beside the read and
// never fails or delays the run.
import "server-only";
import { logger } from "@/lib/logger";
import type { RunContext } from "./context";
import { previousReadCount, saveEstimate } from "./run-store";
import { engineSettings } from "./settings";

export async function estimateRun(ctx: RunContext, signal: AbortSignal): Promise<void> {
  const { run, sync, model } = ctx;
  if (run.estimatedRows !== null) return;
  try {
    const fullRead = !sync.cursorField || sync.syncMode === "full_refresh";
    const previous = fullRead ? await previousReadCount(sync.id, run.id, model.updatedAt) : null;
    if (previous !== null) return await saveEstimate(run.id, previous, "previous_run");
    if (!ctx.source.estimateRows || signal.aborted) return;
    const cursorField = fullRead ? undefined : (sync.cursorField ?? undefined);
    const estimated = await ctx.source.estimateRows(ctx.sourceConfig, {
      query: model.query,
      batchSize: engineSettings.batchSize,
      cursorField,
      cursorValue: cursorField ? sync.currentCursorField : undefined,
      signal,
    });
    if (estimated !== null && estimated >= 0) await saveEstimate(run.id, estimated, "source");
  } catch (err) {
    // Progress without an estimate is indeterminate, not wrong: the run goes on either way.
    logger.debug({ runId: run.id, err: ctx.scrub(err instanceof Error ? err.message : String(err)) }, "no row estimate for the run");
  }
}

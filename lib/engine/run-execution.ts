// A general run's extract loop: streams the model in batches and keeps up to
// ENGINE_BATCHES_IN_FLIGHT of them being diffed, sent and recorded while the next one is read.
// Records commit in any order; the cursor only moves over a gap-free prefix (cursor-tracker.ts).
// After a complete full read, rows tracked but no longer read are deleted (delete-detection.ts).
import "server-only";
import type { ReadOptions } from "@/lib/connectors/types";
import { cursorText, rowAt, type ReadBatch } from "./batch";
import { BatchDiffer } from "./batch-diff";
import { CursorTracker } from "./cursor-tracker";
import { detectDeletes } from "./delete-detection";
import { hasStates } from "./diff";
import { BatchRecorder } from "./record-batch";
import type { RunAttempt, RunStrategy } from "./run-attempt";
import { sendItems } from "./send-batch";
import { engineSettings } from "./settings";

export const generalRun: RunStrategy = { batchRequests: true, tracksSync: true, extract: extractAndLoad };

async function extractAndLoad(attempt: RunAttempt): Promise<void> {
  const { ctx, pool } = attempt;
  const cursorField = ctx.sync.syncMode === "incremental" ? (ctx.sync.cursorField ?? undefined) : undefined;
  // Checked per attempt: a resumed attempt finds the states its predecessor recorded and diffs.
  const noStates = !(await hasStates(pool, ctx.sync.id));
  const differ = new BatchDiffer(pool, ctx, noStates);
  const cursor = new CursorTracker(ctx.sync.id);
  const recorder = new BatchRecorder(attempt, { states: noStates ? "copy" : "upsert", cursor });

  /** Diff → map and load → record, for one batch. */
  const processBatch = async (seq: number, batch: ReadBatch, cursorValue: string | undefined) => {
    const started = performance.now();
    const { delta, toSend, rebaselined } = await differ.diff(batch);
    attempt.timings.diff += performance.now() - started;
    const outcomes = await sendItems(attempt, toSend);
    await recorder.record({ seq, outcomes, delta, cursorValue, rebaselined, complete: outcomes.length === toSend.length });
  };

  const options: ReadOptions = {
    query: ctx.model.query,
    batchSize: engineSettings.batchSize,
    cursorField,
    cursorValue: cursorField ? ctx.sync.currentCursorField : undefined,
    signal: attempt.signal,
  };
  // Sources that fingerprint rows themselves spare us parsing the rows that turn out unchanged.
  const iterable: AsyncIterable<ReadBatch> = ctx.source.readFingerprinted
    ? ctx.source.readFingerprinted(ctx.sourceConfig, { ...options, fingerprint: { seed: ctx.fingerprintSeed, primaryKey: ctx.model.primaryKey } })
    : ctx.source.read(ctx.sourceConfig, options);
  const iterator = iterable[Symbol.asyncIterator]();
  const inflight = new Set<Promise<void>>();
  const window = engineSettings.batchesInFlight;
  try {
    for (;;) {
      if (attempt.halted) break;
      const started = performance.now();
      const next = await iterator.next();
      attempt.timings.query += performance.now() - started;
      if (next.done) break;
      const batch = next.value;
      const cursorValue = cursorField && batch.length > 0 ? cursorText(rowAt(batch, batch.length - 1)[cursorField]) : undefined;
      const task = processBatch(attempt.nextSeq++, batch, cursorValue).catch((err) => attempt.fail(err));
      inflight.add(task);
      void task.finally(() => inflight.delete(task));
      while (inflight.size >= window) await Promise.race(inflight);
    }
  } catch (err) {
    attempt.fail(err);
  } finally {
    await Promise.all(inflight);
    // Stops the source's cursor when we leave early; harmless when it already finished.
    await iterator.return?.().catch(() => undefined);
  }
  const fullRead = !ctx.sync.cursorField || ctx.sync.syncMode === "full_refresh";
  try {
    if (!attempt.halted && fullRead && ctx.sync.detectDeletes) await detectDeletes(attempt, differ.seen, recorder);
  } finally {
    await cursor.settled().catch((err) => attempt.fail(err));
  }
}

// A general run's extract loop: streams the model in batches and keeps up to
// ENGINE_BATCHES_IN_FLIGHT of them being diffed, sent and recorded while the next one is read.
// Records commit in any order; the cursor only moves over a gap-free prefix (cursor-tracker.ts).
// After a complete full read, rows tracked but no longer read are deleted (delete-detection.ts).
import "server-only";
import type { ReadOptions } from "@/lib/connectors/types";
import { cursorText, itemList, rowAt, type ReadBatch } from "./batch";
import { BatchDiffer } from "./batch-diff";
import { CursorTracker } from "./cursor-tracker";
import { detectDeletes } from "./delete-detection";
import { SendGroups } from "./send-groups";
import { hasStates } from "./diff";
import { BatchRecorder } from "./record-batch";
import type { RunAttempt, RunStrategy } from "./run-attempt";
import { sendItems } from "./send-batch";
import { engineSettings } from "./settings";
import { forEachBatch } from "./batch-window";
import { KeySet } from "./key-set";
import { loadUnchangedFilter, type PendingFilter } from "./unchanged-filter";
import { extractPassThrough } from "./pass-through/extract";
import { planPassThrough } from "./pass-through/plan";
import { claimRecordColumns } from "./run-store";
import { detectsDeletes } from "@/lib/sync-rules/write-mode";
import { holdsForApproval } from "./plan/guard-step";
import { updateBindingFor } from "./plan/approval";
import { guardInForce } from "@/lib/sync-rules/guard";

export const generalRun: RunStrategy = { batchRequests: true, tracksSync: true, extract: (attempt) => extractAndLoad(attempt) };

/** `read`: more read options (a live sync's backfill reads as of its slot's snapshot). */
export async function extractAndLoad(attempt: RunAttempt, read: Pick<ReadOptions, "snapshot"> = {}): Promise<void> {
  const { ctx, pool } = attempt;
  const cursorField = ctx.sync.syncMode === "incremental" ? (ctx.sync.cursorField ?? undefined) : undefined;
  // Checked per attempt: a resumed attempt finds the states its predecessor recorded and diffs.
  const noStates = !(await hasStates(pool, ctx.sync.id));
  // A first sync's rows are most likely new in the destination too, until a write finds otherwise.
  attempt.newRows.likely = noStates;
  // Unchanged rows of a full re-read pass in memory (the guard's plan below uses the same filter).
  const unchanged = loadUnchangedFilter(pool, ctx, { noStates, fromCursor: cursorField !== undefined && ctx.sync.currentCursorField != null });
  // Before anything is written: a sync with blast-radius limits plans first and may stop here.
  if (await holdsForApproval(attempt, unchanged)) return;
  // Decided once: only an approved run checks its updates as it writes them (the source may have
  // changed since it planned, and a resumed attempt does not plan again).
  attempt.updates = guardInForce(ctx.sync) ? updateBindingFor(ctx.run.plan) : null;
  const seen = new KeySet();
  const cursor = new CursorTracker(ctx.sync.id);
  const recorder = new BatchRecorder(attempt, { states: noStates ? "copy" : "upsert", cursor });
  const options: ReadOptions = {
    query: ctx.model.query,
    batchSize: engineSettings.batchSize,
    cursorField,
    cursorValue: cursorField ? ctx.sync.currentCursorField : undefined,
    signal: attempt.signal,
    ...read,
  };
  try {
    const plan = await planPassThrough(ctx, options, { noStates, runId: ctx.run.id, attempts: ctx.run.attempts });
    // Every attempt of a run stores its records alike: a run whose earlier attempt read other columns stays on the JSON path.
    if (plan && (await claimRecordColumns(ctx.run.id, plan.recordColumns))) {
      await extractPassThrough(attempt, plan, { options, noStates, unchanged, seen, recorder });
    } else await extractRows(attempt, options, { noStates, unchanged, seen, recorder });
    const fullRead = !ctx.sync.cursorField || ctx.sync.syncMode === "full_refresh";
    if (!attempt.halted && fullRead && detectsDeletes(ctx.sync)) await detectDeletes(attempt, seen, recorder);
  } finally {
    await cursor.settled().catch((err) => attempt.fail(err));
  }
}

/** The JSON path: rows (or source-fingerprinted rows) diffed, mapped and loaded record by record. */
async function extractRows(
  attempt: RunAttempt,
  options: ReadOptions,
  run: { noStates: boolean; unchanged: PendingFilter; seen: KeySet; recorder: BatchRecorder },
) {
  const { ctx, pool } = attempt;
  const differ = new BatchDiffer(pool, { ...ctx, run: { id: attempt.ownStatesRunId } }, run.noStates, run.seen, run.unchanged);
  const { cursorField } = options;

  const groups = new SendGroups((items) => sendItems(attempt, itemList(items)), run.recorder);
  /** Diff, then map, load and record with the group the batch joins (send-groups.ts). */
  const processBatch = async (seq: number, batch: ReadBatch) => {
    const cursorValue = cursorField && batch.length > 0 ? cursorText(rowAt(batch, batch.length - 1)[cursorField]) : undefined;
    const started = performance.now();
    const { delta, toSend, rebaselined } = await differ.diff(batch);
    attempt.timings.diff += performance.now() - started;
    await groups.add({ seq, items: toSend, delta, cursorValue, rebaselined });
  };
  // Sources that fingerprint rows themselves spare us parsing the rows that turn out unchanged.
  const iterable: AsyncIterable<ReadBatch> = ctx.source.readFingerprinted
    ? ctx.source.readFingerprinted(ctx.sourceConfig, { ...options, fingerprint: { seed: ctx.fingerprintSeed, primaryKey: ctx.model.primaryKey } })
    : ctx.source.read(ctx.sourceConfig, options);
  await forEachBatch(attempt, iterable, processBatch);
  await groups.flush().catch((err: unknown) => attempt.fail(err));
}

// The lines read loop (plan.ts says when): per batch of COPY lines, key and fingerprint each line,
// classify the batch against sync_states like any batch, and record the lines sent (the line is the
// record). Pass-through upserts the changed lines into the destination in one statement; a batch the
// destination refuses is sent again through the JSON path, which isolates the rows at fault and
// records each row's own outcome, so the guarantees (per-record outcomes, exact counters, nothing lost
// or sent twice across a killed worker) are the JSON path's. Mapped lines take that path at once.
import "server-only";
import { copyFields } from "@/lib/connectors/shared/copy-lines";
import { CopyLines, type LineBatch } from "@/lib/db/pg-wire/line-batch";
import { copyUnescape } from "@/lib/db/pg-wire/text-copy";
import type { Pool } from "pg";
import type { ReadOptions } from "@/lib/connectors/types";
import { MappingError, type RowClock } from "@/lib/sync-rules/mapping";
import type { SyncRecordAction } from "@/lib/generated/prisma/enums";
import { cursorText, itemList, type Item, type Items, type Outcome, type Outcomes } from "../batch";
import { forEachBatch } from "../batch-window";
import { classifyBatch, keyText } from "../diff";
import type { Digests } from "../fingerprints";
import { fingerprintLines } from "../fingerprints-off-thread";
import type { RunContext } from "../context";
import type { KeySet } from "../key-set";
import type { BatchRecorder } from "../record-batch";
import type { RunAttempt } from "../run-attempt";
import { zeroCounters, type RunCounters } from "../run-store";
import { sendItems } from "../send-batch";
import { SendGroups } from "../send-groups";
import { engineSettings } from "../settings";
import type { PendingFilter } from "../unchanged-filter";
import type { ComposedColumn, PassThroughPlan } from "./plan";
import type { UpdateBinding } from "../plan/approval";
import { InsertedLines, LineItem } from "./line-items";

export interface PassThroughRun {
  options: ReadOptions;
  /** The sync tracked no row when the attempt began: every row is an insert, no diff query. */
  noStates: boolean;
  /** Fingerprints delivered before (a full re-read): rows found there are unchanged without a query. */
  unchanged: PendingFilter;
  /** Keys read in this attempt (repeats; delete detection). */
  seen: KeySet;
  recorder: BatchRecorder;
}

const ACTION: Record<"i" | "u", SyncRecordAction> = { i: "destination_insert", u: "destination_update" };

/** Settles once every line's fingerprint is computed: the JSON path may read them (its delivery ledger). */
async function fingerprinted(items: readonly Item[]): Promise<void> {
  const pending = new Set<Promise<void>>();
  for (const item of items) if (item instanceof LineItem) pending.add(item.ready);
  for (const ready of pending) await ready;
}

/** The fields of each line (of `width` fields) at `pick`, still COPY text: each joined flat, as composeLines' are. */
function picked(lines: string[], pick: number[], width: number): string[] {
  const parts = new Array<string>(pick.length).fill("");
  return lines.map((line) => {
    const fields = copyFields(line, width);
    for (let i = 0; i < pick.length; i++) parts[i] = fields[pick[i]];
    return parts.join("\t");
  });
}

/** A batch of lines ends at this much text, whatever its line count: wide rows keep its memory bounded. */
export const TEXT_BATCH_CHARS = 8 * 1024 * 1024;

/** Longest stretch of synchronous mapping before the run gives the event loop a turn (as send-batch.ts). */
const YIELD_AFTER_MS = 20;

/** A run of a line's fields kept as they came (first to last), or one computed column. */
type Piece = { first: number; last: number } | Exclude<ComposedColumn, number>;

/** The composed columns with consecutive source fields joined into one run: one slice of the line each. */
function piecesOf(compose: ComposedColumn[]): Piece[] {
  const pieces: Piece[] = [];
  for (const c of compose) {
    const run = pieces[pieces.length - 1];
    if (typeof c !== "number") pieces.push(c);
    else if (run && "first" in run && run.last + 1 === c) run.last = c;
    else pieces.push({ first: c, last: c });
  }
  return pieces;
}

/**
 * Where each field of `line` starts, into `starts` (starts[n] is one past the line's end, as if a tab
 * followed it): how many fields. Field i is line.slice(starts[i], starts[i + 1] - 1).
 */
function fieldStarts(line: string, starts: Int32Array): number {
  let n = 0;
  let at = 0;
  for (;;) {
    if (n < starts.length) starts[n] = at;
    n++;
    const tab = line.indexOf("\t", at);
    if (tab < 0) break;
    at = tab + 1;
  }
  if (n < starts.length) starts[n] = line.length + 1;
  return n;
}

/**
 * The lines to upsert for items whose plan computes some columns: only the fields the computed columns
 * read are decoded, and only those columns computed; the source's fields go as they came, a run of
 * them as one slice of the line. Items whose row cannot be mapped are left out (decoded whole), for
 * the JSON path to record their errors.
 */
async function composeLines(plan: PassThroughPlan, compose: ComposedColumn[], batch: Items): Promise<{ lines: string[]; mapped: Items; unmappable: Item[] }> {
  const lines: string[] = [];
  const mapped: number[] = [];
  const unmappable: Item[] = [];
  // A batch held as columns stays so when every line maps (a first sync's, mostly).
  const lineAt = Array.isArray(batch) ? (k: number) => batch[k].line as string : (k: number) => batch.lines.line(batch.kept[k]);
  // One time for the batch, as map() is given (every template's current_timestamp).
  const clock: RowClock = { now: new Date() };
  const { columns } = plan.recordColumns;
  const reads = plan.composeReads;
  const pieces = piecesOf(compose);
  const starts = new Int32Array(columns.length + 1);
  const field = (line: string, i: number) => line.slice(starts[i], starts[i + 1] - 1);
  const one = reads?.fields.length === 1 ? reads.fields[0] : -1;
  // A line's pieces, joined once: a flat string (a chain of `+=` made a tree of small strings per
  // line, each copied by every young-generation collection it lived through, then walked to join).
  const parts = new Array<string>(pieces.length).fill("");
  let turn = performance.now();
  for (let k = 0; k < batch.length; k++) {
    // The clock is read every 64 lines: a line takes microseconds, a read of it a tenth of one.
    if ((k & 63) === 63 && performance.now() - turn > YIELD_AFTER_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      turn = performance.now();
    }
    const line = lineAt(k);
    try {
      // A row of only the fields read (never kept on the item: a refused batch decodes the line again).
      // A line of another width is decoded whole, which says what is wrong with it.
      const width = fieldStarts(line, starts);
      const row =
        !reads || width !== columns.length
          ? plan.source.decode(line, columns)
          : reads.fields.length === 0
            ? {}
            : plan.source.decode(one >= 0 ? field(line, one) : reads.fields.map((f) => field(line, f)).join("\t"), reads.columns);
      for (let i = 0; i < pieces.length; i++) {
        const p = pieces[i];
        parts[i] = "first" in p ? line.slice(starts[p.first], starts[p.last + 1] - 1) : p.text(p.field.value(row, clock));
      }
    } catch (err) {
      if (!(err instanceof MappingError)) throw err;
      const item = itemList(batch)[k];
      item.row = plan.source.decode(line, columns);
      unmappable.push(item);
      continue;
    }
    lines.push(parts.join("\t"));
    mapped.push(k);
  }
  if (unmappable.length === 0) return { lines, mapped: batch, unmappable };
  const items = itemList(batch);
  return { lines, mapped: mapped.map((k) => items[k]), unmappable };
}

/**
 * Keys and fingerprints of a batch's trackable lines (blank and repeated keys are counted in `delta`
 * and dropped; new keys join `seen`); the fingerprints may still be computing (`ready`). The plan keys
 * lines the same way (plan/planner.ts). `recordRows`: the lines will all be sent (a first sync), so
 * their record rows are written with the fingerprints.
 */
export function keyLines(plan: PassThroughPlan, lines: LineBatch, seen: KeySet, delta: RunCounters, recordRows = false) {
  const kept = new Int32Array(lines.length);
  let n = 0;
  let blank = 0;
  // The keys are written over the fields they come from (a key's index never passes its field's).
  const keys = lines.fields(plan.keyIndex);
  for (let i = 0; i < lines.length; i++) {
    const raw = copyUnescape(keys[i]);
    const key = raw === null ? null : keyText(raw);
    if (key === null) {
      delta.skippedRows++;
      blank++;
    } else if (seen.has(key)) delta.duplicateRows++;
    else {
      seen.add(key);
      keys[n] = key;
      kept[n++] = i;
    }
  }
  keys.length = n;
  const keptLines = n === lines.length ? kept : kept.slice(0, n);
  return { keys, fingerprints: fingerprintLines(plan.seed, lines, keptLines, recordRows), lines, kept: keptLines, blank };
}

/** A batch with fewer than 1 in COMPACT_BELOW of its lines to send copies them out (diffLines). */
const COMPACT_BELOW = 4;

/**
 * A batch's keyed lines classified against sync_states (none tracked yet, a first sync: all inserts,
 * no query): the Items to send, and how many lines were unchanged. The plan diffs lines the same way.
 * A first sync's items may be sent before their fingerprints are ready; they are recorded after.
 * `holdsLines`: some item reads the batch (none when nothing is sent, or the few sent were copied out).
 */
export async function diffLines(
  pool: Pool,
  ctx: Pick<RunContext, "sync"> & { run: { id: number } },
  keyed: { keys: string[]; fingerprints: Digests; lines: LineBatch; kept: Int32Array },
  state: { noStates: boolean; unchanged: PendingFilter },
): Promise<{ items: Items; unchanged: number; holdsLines: boolean }> {
  const { keys, fingerprints, lines, kept } = keyed;
  if (!state.noStates) await fingerprints.ready;
  const classes = state.noStates
    ? undefined
    : (
        await classifyBatch(pool, {
          syncId: ctx.sync.id,
          runId: ctx.run.id,
          keys,
          fingerprints,
          fullRefresh: ctx.sync.syncMode === "full_refresh",
          unchanged: state.unchanged,
        })
      ).classes;
  // A first sync sends every line, as an insert, where it is: as columns, no object a line (a million a run).
  if (!classes && keys.length * COMPACT_BELOW >= lines.length) {
    return { items: new InsertedLines(keys, lines, kept, fingerprints), unchanged: 0, holdsLines: keys.length > 0 };
  }
  // Positions (in keys) of the lines to send, and their actions.
  const sent: number[] = [];
  const actions: SyncRecordAction[] = [];
  let unchanged = 0;
  for (let i = 0; i < keys.length; i++) {
    const c = classes ? classes.get(i) : "i";
    if (c === undefined) unchanged++;
    else if (c !== "d") {
      sent.push(i);
      actions.push(ACTION[c]);
    }
  }
  // A few changed lines of a re-run's batch wait to be sent and recorded (a group holds up to 16
  // batches): copied out, they do not hold the whole batch's buffer meanwhile.
  const few = sent.length * COMPACT_BELOW < lines.length && lines.bytes !== null;
  const from = few ? lines.compact(sent.map((k) => kept[k])) : lines;
  const items: Item[] = sent.map((k, j) => new LineItem(keys[k], from, few ? j : kept[k], actions[j], fingerprints, k));
  return { items, unchanged, holdsLines: items.length > 0 && !few };
}

/** The items' lines as they are held in their batches. */
function heldLines(items: Items): CopyLines {
  if (!Array.isArray(items)) return CopyLines.ofLines(items.lines, items.kept);
  if (!items.every((i) => i instanceof LineItem)) return CopyLines.ofTexts(items.map((i) => i.line as string));
  const held = items as readonly LineItem[];
  return CopyLines.ofLines(
    held.map((i) => i.lines),
    held.map((i) => i.lineIndex),
  );
}

/** The items' batches keep their buffers for good: a write that failed midway may still read them. */
function pinLines(items: Items): void {
  if (!Array.isArray(items)) items.lines.pin();
  else for (const item of items) if (item instanceof LineItem) item.lines.pin();
}

/** Throws, before the batch joins a send, at the first update the run's approval does not cover. */
function bindLines(binding: UpdateBinding, items: readonly Item[]): void {
  for (const item of items) if (item.action === "destination_update") binding.admit(item.key);
}

export async function extractPassThrough(attempt: RunAttempt, plan: PassThroughPlan, run: PassThroughRun): Promise<void> {
  const { ctx, pool } = attempt;
  const { recordColumns, cursorIndex } = plan;
  const cursorColumn = cursorIndex < 0 ? undefined : [recordColumns.columns[cursorIndex]];
  /** The cursor column's value as the JSON path would save it (run-execution.ts). */
  const cursorOf = (lines: LineBatch, i: number) => cursorColumn && cursorText(Object.values(plan.source.decode(lines.field(i, cursorIndex), cursorColumn))[0]);

  /** The destination's answer for the items: all accepted, or each row's own outcome through the JSON path. */
  const send = async (batch: Items): Promise<Outcomes> => {
    if (batch.length === 0 || attempt.halted) return [];
    const { destination, pick, compose } = plan;
    if (!destination) {
      // Mapped lines: decoded only now, once they are known to be sent.
      const items = itemList(batch);
      for (const item of items) item.row = plan.source.decode(item.line as string, recordColumns.columns);
      await fingerprinted(items);
      return sendItems(attempt, items);
    }
    // Lines sent as they are, or their picked fields, need no objects (a first sync's batch stays columns).
    if (!compose) {
      const picks = pick && picked(itemList(batch).map((i) => i.line as string), pick, recordColumns.columns.length);
      return upsert(destination, batch, picks ? CopyLines.ofTexts(picks) : heldLines(batch), []);
    }
    const composed = await composeLines(plan, compose, batch);
    // A row its mapping refuses fails alone, recorded by the JSON path with the mapping's error.
    let unmappable: Outcome[] = [];
    if (composed.unmappable.length > 0) {
      await fingerprinted(composed.unmappable);
      unmappable = await sendItems(attempt, composed.unmappable, true);
    }
    return composed.mapped.length === 0 ? unmappable : upsert(destination, composed.mapped, CopyLines.ofTexts(composed.lines), unmappable);
  };

  /** One upsert of `sent` as `lines`; a refused batch goes through the JSON path, row by row. */
  const upsert = async (destination: NonNullable<PassThroughPlan["destination"]>, sent: Items, lines: CopyLines, unmappable: Outcome[]): Promise<Outcomes> => {
    const started = performance.now();
    const result = await destination.upsert(ctx.destinationConfig, ctx.stream, plan.destinationColumns, lines, { likelyNew: attempt.newRows.likely }).catch((err: unknown) => {
      pinLines(sent);
      throw err;
    });
    attempt.timings.load += performance.now() - started;
    if (result.ok) {
      if (result.keysExisted) attempt.newRows.likely = false;
      if (!Array.isArray(sent) && unmappable.length === 0) return { accepted: sent };
      const accepted = itemList(sent).map((item): Outcome => ({ item, ok: true }));
      return unmappable.length === 0 ? accepted : [...unmappable, ...accepted];
    }
    pinLines(sent);
    const refused = itemList(sent);
    for (const item of refused) item.row ??= plan.source.decode(item.line as string, recordColumns.columns);
    await fingerprinted(refused);
    return [...unmappable, ...(await sendItems(attempt, refused, true))];
  };

  const groups = new SendGroups(send, run.recorder);
  const processBatch = async (seq: number, lines: LineBatch) => {
    const started = performance.now();
    const delta = zeroCounters();
    delta.totalQueryRows = lines.length;
    delta.processedRows = lines.length;
    const keyed = keyLines(plan, lines, run.seen, delta, run.noStates);
    const { items, unchanged, holdsLines } = await diffLines(pool, { ...ctx, run: { id: attempt.ownStatesRunId } }, keyed, run);
    delta.skippedRows += unchanged;
    // Passed-through lines go in as upserts, so the diff's updates are the writes' (passesThrough):
    // bound here. Mapped lines are bound as the JSON path's rows are, once the write mode split them.
    if (attempt.updates && plan.destination && Array.isArray(items)) bindLines(attempt.updates, items);
    attempt.timings.diff += performance.now() - started;
    const cursorValue = lines.length > 0 ? cursorOf(lines, lines.length - 1) : undefined;
    // A re-run's diff waited for the thread to finish with the batch: if no item reads it, it is done.
    if (!run.noStates && !holdsLines) lines.release();
    // Recorded, the batch's buffers go back to the pool for the batches after it.
    const done = () => {
      lines.release();
      keyed.fingerprints.release();
    };
    await groups.add({ seq, items, delta, cursorValue, ready: keyed.fingerprints.ready, done });
  };

  // Lines bound for a COPY text destination go in larger batches than rows (engineSettings.textBatchSize);
  // mapped lines become rows for the JSON path, so they keep its batch size.
  const options = plan.destination ? { ...run.options, batchSize: engineSettings.textBatchSize, batchChars: TEXT_BATCH_CHARS } : run.options;
  await forEachBatch(attempt, plan.source.read(ctx.sourceConfig, options), processBatch);
  await groups.flush().catch((err: unknown) => attempt.fail(err));
}

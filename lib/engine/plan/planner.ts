// The plan: what a general run of the sync would do now, computed with the run's own stages and
// nothing written anywhere. Read (the same path the run takes: COPY text or JSON, from the saved
// cursor) → diff against sync_states read-only (the run's classifier) → map → the write mode's split
// → deletes: tracked rows the read did not see (the run's delete detection, counted only). It keeps
// counts, a few samples per action and the keys read (a KeySet), so memory stays flat whatever the
// model's size. docs/plan-and-guard.md has the shapes.
import "server-only";
import type { Row, WriteRecord } from "@/lib/connectors/types";
import type { SyncRecordAction } from "@/lib/generated/prisma/enums";
import { pgPool } from "@/lib/db/client";
import { effectiveGuard, guardViolations, type EffectiveGuard } from "@/lib/sync-rules/guard";
import { deletePayload } from "@/lib/sync-rules/mapping";
import { detectsDeletes, type WriteMode } from "@/lib/sync-rules/write-mode";
import { itemList, type Item, type ReadBatch } from "../batch";
import { BatchDiffer } from "../batch-diff";
import type { RunContext } from "../context";
import { goneStates } from "../delete-detection";
import { KeySet } from "../key-set";
import { diffLines, keyLines, TEXT_BATCH_CHARS } from "../pass-through/extract";
import { planPassThrough, type PassThroughPlan } from "../pass-through/plan";
import { zeroCounters } from "../run-store";
import { mapItems } from "../send-batch";
import { engineSettings } from "../settings";
import { countStates } from "../state-blocks";
import { loadUnchangedFilter, type PendingFilter } from "../unchanged-filter";
import { recordActionOf, splitByWriteMode } from "../write-mode";
import { ChangeKeyCollector, type ChangeKeys } from "./change-keys";

export const PLAN_ACTIONS = ["insert", "update", "delete", "skip"] as const;
export type PlanAction = (typeof PLAN_ACTIONS)[number];

export interface PlanCounts {
  /** Rows the model returned. */
  read: number;
  insert: number;
  update: number;
  delete: number;
  /** Rows the write mode would not send (update: key not in the destination; insert: key already there). */
  skip: number;
  /** Rows unchanged since they were last delivered: not sent. */
  unchanged: number;
  /** Rows whose key was already read earlier in the same read: not sent. */
  duplicate: number;
  /** Rows without a usable primary key: not sent. */
  blank_key: number;
}

/** What a run stores in sync_runs.plan: the counts and the guard's verdict (no rows). */
export interface RunPlan {
  planned_at: string;
  write_mode: WriteMode;
  counts: PlanCounts;
  /** Rows the sync tracked (delivered or tried) before the run: what the percentages are of. */
  tracked: number;
  /** The whole model is read (no incremental cursor): deletes and the empty-extract check apply. */
  full_read: boolean;
  /** Incremental syncs: the cursor column and the saved value the read starts from (null: the start). */
  cursor: { field: string; from: string | null } | null;
  guard: EffectiveGuard;
  /** The limits the run would break, as sentences; empty when it may go on. */
  exceeded: string[];
  /** The keys it would update and delete: what an approval of this plan binds to (approval.ts). Not in the API. */
  changes: { update: ChangeKeys; delete: ChangeKeys };
}

export interface PlanSample {
  primary_key: string;
  /** The source row as read (null for a delete: the row left the model). */
  row: Row | null;
  /** The mapped destination payload (null when the mapping fails: see error). */
  payload: Row | null;
  /** skip: why the write mode would not send it. */
  reason?: string;
  /** The mapping's error: the run would record the row failed. */
  error?: string;
}

/** The plan the API answers: the run's plan and a page of sample rows per action. */
export interface SyncPlan extends RunPlan {
  samples: Record<PlanAction, PlanSample[]>;
}

export interface PlanOptions {
  /** Stops the read (cancel, time limit): the plan throws the signal's reason. */
  signal?: AbortSignal;
  /** Sample rows kept per action; 0 keeps none (a run planning for its guard). */
  sampleSize?: number;
  /** The run's filter of delivered fingerprints, when it loaded one already (else the plan loads its own). */
  unchanged?: PendingFilter;
}

const ACTION_OF: Readonly<Record<SyncRecordAction, PlanAction>> = { destination_insert: "insert", destination_update: "update", destination_delete: "delete" };

export async function planRun(ctx: RunContext, options: PlanOptions = {}): Promise<SyncPlan> {
  const pool = pgPool();
  const { sync } = ctx;
  const sampleSize = options.sampleSize ?? 0;
  const signal = options.signal;
  const halted = () => signal?.aborted === true;
  const counts: PlanCounts = { read: 0, insert: 0, update: 0, delete: 0, skip: 0, unchanged: 0, duplicate: 0, blank_key: 0 };
  const samples: Record<PlanAction, PlanSample[]> = { insert: [], update: [], delete: [], skip: [] };
  const room = (action: PlanAction) => samples[action].length < sampleSize;
  const changed = { update: new ChangeKeyCollector(), delete: new ChangeKeyCollector() };
  /** One row counted under its action; the keys an approval binds to are kept. */
  const note = (action: PlanAction, key: string) => {
    counts[action]++;
    if (action === "update" || action === "delete") changed[action].add(key);
  };

  const tracked = await countStates(pool, sync.id);
  // As extractAndLoad reads: incremental syncs from the saved cursor, every other read in full.
  const cursorField = sync.syncMode === "incremental" ? (sync.cursorField ?? undefined) : undefined;
  const readOptions = {
    query: ctx.model.query,
    batchSize: engineSettings.batchSize,
    cursorField,
    cursorValue: cursorField ? sync.currentCursorField : undefined,
    signal,
  };
  const unchanged =
    options.unchanged !== undefined
      ? options.unchanged
      : loadUnchangedFilter(pool, ctx, { noStates: tracked === 0, fromCursor: cursorField !== undefined && sync.currentCursorField != null });
  const seen = new KeySet();
  // Only the update and insert modes can skip rows, and only by asking the destination about the
  // mapped records: the other modes map just the rows they show.
  const modeMaySkip = sync.writeMode === "update" || sync.writeMode === "insert";
  const now = new Date();

  /** A batch's diffed Items: mapped where needed, split by the write mode, counted and sampled. */
  const tally = async (items: Item[], decode?: (item: Item) => Row) => {
    let toMap = items;
    if (!modeMaySkip) {
      // Every row is counted; only as many as the samples still want are mapped.
      const wanted = { insert: 0, update: 0, delete: 0, skip: 0 };
      toMap = [];
      for (const i of items) {
        const action = ACTION_OF[i.action];
        note(action, i.key);
        if (samples[action].length + wanted[action] < sampleSize) {
          wanted[action]++;
          toMap.push(i);
        }
      }
    }
    if (toMap.length === 0) return;
    if (decode) for (const i of toMap) i.row ??= decode(i);
    const { records, byKey, failures } = await mapItems(ctx, toMap, now);
    const rowOf = (item: Item): Row | null => item.row ?? (item.json === undefined ? null : (JSON.parse(item.json) as Row));
    for (const f of failures) {
      const action = ACTION_OF[f.item.action];
      // The run records a row it cannot map as failed, under its action.
      if (modeMaySkip) note(action, f.item.key);
      if (room(action)) samples[action].push({ primary_key: f.item.key, row: rowOf(f.item), payload: null, error: f.error });
    }
    const sample = (action: PlanAction, record: WriteRecord, reason?: string) => {
      if (!room(action)) return;
      const item = byKey.get(record.key) as Item;
      samples[action].push({ primary_key: record.key, row: rowOf(item), payload: record.payload, ...(reason === undefined ? {} : { reason }) });
    };
    if (!modeMaySkip) {
      for (const r of records) sample(ACTION_OF[(byKey.get(r.key) as Item).action], r);
      return;
    }
    const split = await splitByWriteMode(ctx, records, signal);
    for (const r of split.send) {
      // As the run records it: the mode's presence check decides insert or update, not the diff.
      const action = ACTION_OF[recordActionOf(r.action, (byKey.get(r.key) as Item).action)];
      note(action, r.key);
      sample(action, r);
    }
    for (const s of split.skipped) {
      counts.skip++;
      sample("skip", s.record, s.reason);
    }
  };

  const passThrough = await planPassThrough(ctx, readOptions, { noStates: tracked === 0, runId: ctx.run.id, attempts: ctx.run.attempts });
  if (passThrough) await readLines(ctx, passThrough, { readOptions, seen, noStates: tracked === 0, unchanged, counts, tally, halted });
  else {
    const differ = new BatchDiffer(pool, ctx, tracked === 0, seen, unchanged);
    const batches: AsyncIterable<ReadBatch> = ctx.source.readFingerprinted
      ? ctx.source.readFingerprinted(ctx.sourceConfig, { ...readOptions, fingerprint: { seed: ctx.fingerprintSeed, primaryKey: ctx.model.primaryKey } })
      : ctx.source.read(ctx.sourceConfig, readOptions);
    for await (const batch of batches) {
      if (halted()) break;
      const { delta, toSend } = await differ.diff(batch);
      counts.read += delta.totalQueryRows;
      counts.duplicate += delta.duplicateRows;
      counts.unchanged += delta.skippedRows;
      await tally(toSend);
    }
    counts.blank_key = differ.blankKeys;
    counts.unchanged -= differ.blankKeys;
  }
  if (halted()) throw signal?.reason ?? new Error("The plan was stopped.");

  const fullRead = !sync.cursorField || sync.syncMode === "full_refresh";
  if (fullRead && detectsDeletes(sync)) {
    for await (const page of goneStates(pool, sync.id, ctx.run.id, seen, halted)) {
      for (const gone of page.delivered) note("delete", gone.key);
      for (const gone of page.delivered) {
        if (!room("delete")) break;
        samples.delete.push({ primary_key: gone.key, row: null, payload: deletePayload(ctx.mapping, ctx.model.primaryKey, gone.key) });
      }
    }
    if (halted()) throw signal?.reason ?? new Error("The plan was stopped.");
  }

  const guard = effectiveGuard(sync);
  const keyed = counts.read - counts.duplicate - counts.blank_key;
  return {
    planned_at: new Date().toISOString(),
    write_mode: sync.writeMode,
    counts,
    tracked,
    full_read: fullRead,
    cursor: cursorField ? { field: cursorField, from: sync.currentCursorField } : null,
    guard,
    exceeded: guardViolations(guard, { tracked, keyed, update: counts.update, delete: counts.delete, fullRead }),
    changes: { update: changed.update.result(), delete: changed.delete.result() },
    samples,
  };
}

/** The COPY-text read, keyed and classified as extractPassThrough does; rows decoded only to be mapped. */
async function readLines(
  ctx: RunContext,
  plan: PassThroughPlan,
  run: {
    readOptions: Parameters<PassThroughPlan["source"]["read"]>[1];
    seen: KeySet;
    noStates: boolean;
    unchanged: PendingFilter;
    counts: PlanCounts;
    tally: (items: Item[], decode: (item: Item) => Row) => Promise<void>;
    halted: () => boolean;
  },
): Promise<void> {
  const pool = pgPool();
  const decode = (item: Item) => plan.source.decode(item.line as string, plan.recordColumns.columns);
  // Bounded by their text too, as a run's lines bound for a text destination: one batch of wide rows
  // in memory at a time.
  for await (const lines of plan.source.read(ctx.sourceConfig, { ...run.readOptions, batchChars: TEXT_BATCH_CHARS })) {
    if (run.halted()) return;
    const delta = zeroCounters();
    const keyed = keyLines(plan, lines, run.seen, delta);
    const { fingerprints, blank } = keyed;
    const diffed = await diffLines(pool, ctx, keyed, run);
    await fingerprints.ready;
    run.counts.unchanged += diffed.unchanged;
    run.counts.read += lines.length;
    run.counts.duplicate += delta.duplicateRows;
    run.counts.blank_key += blank;
    await run.tally(itemList(diffed.items), decode);
  }
}

// Diff: a read batch becomes the Items to send. Rows are keyed and fingerprinted (blank and repeated
// keys are counted and dropped), classified against sync_states in one statement (diff.ts), and an
// unchanged row whose state still holds the engine's own fingerprint is rebaselined, not sent.
import "server-only";
import type { Pool } from "pg";
import type { FingerprintedBatch, Row } from "@/lib/connectors/types";
import type { SyncRecordAction } from "@/lib/generated/prisma/enums";
import type { ReadBatch, Item } from "./batch";
import type { RunContext } from "./context";
import { classifyBatch, fingerprint, keyText, primaryKeyOf, rowJson, type BatchDiff, type DiffClass } from "./diff";
import { fingerprintAll, HexFingerprints, type Fingerprints } from "./fingerprints";
import { KeySet } from "./key-set";
import type { PendingFilter } from "./unchanged-filter";
import { zeroCounters, type RunCounters } from "./run-store";

/** The classification of a batch against no state at all: every position an insert. */
const ALL_INSERTS: { classes: Pick<BatchDiff["classes"], "get">; storedFingerprints: BatchDiff["storedFingerprints"] } = {
  classes: { get: () => "i" },
  storedFingerprints: new Map(),
};

const ACTION_OF: Record<Exclude<DiffClass, "d">, SyncRecordAction> = { i: "destination_insert", u: "destination_update" };

/** A batch's trackable rows before the diff; `item` builds the i-th one's Item once it is to be sent. */
interface Prepared {
  keys: string[];
  fingerprints: Fingerprints;
  item: (index: number, action: SyncRecordAction) => Item;
}

export interface DiffedBatch {
  /** The batch's read counters (rows read, skipped, duplicates). */
  delta: RunCounters;
  toSend: Item[];
  /** Unchanged rows whose state takes the source's fingerprint (record-batch.ts). */
  rebaselined: Item[];
}

type Track = (key: string | null) => key is string;

/** What the diff reads of a run's context (a plan diffs for a run that does not exist yet). */
export type DiffContext = Pick<RunContext, "sync" | "model" | "fingerprintSeed"> & { run: { id: number } };

export class BatchDiffer {
  /** Rows read without a usable key so far (counted in skippedRows too; the plan shows them apart). */
  blankKeys = 0;

  constructor(
    private readonly pool: Pool,
    private readonly ctx: DiffContext,
    /** The sync tracked no row when this attempt started: batches need no diff query. */
    private readonly noStates: boolean,
    /** Keys read in this attempt (duplicates; delete detection). */
    readonly seen = new KeySet(),
    /** Fingerprints delivered before (a full re-read): rows found there are unchanged without a query. */
    private readonly unchanged: PendingFilter = null,
  ) {}

  async diff(batch: ReadBatch): Promise<DiffedBatch> {
    const { ctx } = this;
    const delta = zeroCounters();
    delta.totalQueryRows = batch.length;
    delta.processedRows = batch.length;
    const { keys, fingerprints, item } = this.prepare(batch, delta);
    // No state at all (a first sync): every row is an insert, without a Map of them.
    const { classes, storedFingerprints } = this.noStates
      ? ALL_INSERTS
      : await classifyBatch(this.pool, {
          syncId: ctx.sync.id,
          runId: ctx.run.id,
          keys,
          fingerprints,
          fullRefresh: ctx.sync.syncMode === "full_refresh",
          unchanged: this.unchanged,
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
        if (stored !== undefined && next.json !== undefined && fingerprint(ctx.fingerprintSeed, next.json) === stored) {
          delta.skippedRows++;
          rebaselined.push(next);
        } else toSend.push(next);
      }
    }
    return { delta, toSend, rebaselined };
  }

  /**
   * Keys and fingerprints of the batch's trackable rows (blank and repeated keys are counted and
   * dropped), and how to make the Item of the i-th of them once it is known to be sent.
   */
  private prepare(batch: ReadBatch, delta: RunCounters): Prepared {
    const track: Track = (key): key is string => {
      if (key === null) {
        delta.skippedRows++;
        this.blankKeys++;
      } else if (this.seen.has(key)) delta.duplicateRows++;
      else {
        this.seen.add(key);
        return true;
      }
      return false;
    };
    // Separate functions: a closure over the fingerprinted batch must not keep plain rows alive too.
    return Array.isArray(batch) ? this.prepareRows(batch, track) : prepareFingerprinted(batch, track);
  }

  private prepareRows(batch: Row[], track: Track): Prepared {
    const { primaryKey } = this.ctx.model;
    const seed = this.ctx.fingerprintSeed;
    const keys: string[] = [];
    const jsons: string[] = [];
    // The rows themselves are kept only when no diff query comes in between: otherwise a sent row is
    // parsed back from its JSON, so unchanged rows die young instead of waiting out the diff.
    const rows: Row[] | undefined = this.noStates ? [] : undefined;
    for (const row of batch) {
      const key = primaryKeyOf(row, primaryKey);
      if (!track(key)) continue;
      const json = rowJson(row);
      keys.push(key);
      jsons.push(json);
      rows?.push(row);
    }
    const fingerprints = fingerprintAll(seed, jsons);
    return { keys, fingerprints, item: (i, action) => ({ key: keys[i], json: jsons[i], fingerprint: fingerprints.hex(i), row: rows?.[i], action }) };
  }
}

/** Fingerprinted by the source: a row is parsed only when it is sent. */
function prepareFingerprinted(batch: FingerprintedBatch, track: Track): Prepared {
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
    fingerprints: new HexFingerprints(fingerprints),
    // Made after the diff, for sent rows only: the parsed row is kept for the mapping.
    item: (i, action) => {
      const row = batch.row(at[i]);
      return { key: keys[i], json: rowJson(row), fingerprint: fingerprints[i], row, action };
    },
  };
}

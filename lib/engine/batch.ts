// What flows through one batch of a run: read rows become Items (diff), Items become Outcomes
// (map + load), Outcomes are recorded.
import type { LineBatch } from "@/lib/db/pg-wire/line-batch";
import type { FingerprintedBatch, RecordLog, Row } from "@/lib/connectors/types";
import type { SyncRecordAction } from "@/lib/generated/prisma/enums";
import type { Digests } from "./fingerprints";

/** A read batch: rows as read (fingerprinted here) or fingerprinted by the source (rows parsed on demand). */
export type ReadBatch = Row[] | FingerprintedBatch;

/** A row on its way through one batch. */
export interface Item {
  key: string;
  /** JSON of the source row: fingerprinted and stored as the record (lib/engine/records/format.ts)... */
  json?: string;
  /** ...or the row as its source's COPY text line (pass-through), stored as such... */
  line?: string;
  /** ...held in its batch (line-batch.ts) at lineIndex: a record writes it from there, `line` never read. */
  lines?: LineBatch;
  lineIndex?: number;
  fingerprint: string;
  /**
   * The row itself, kept only when no diff query comes in between: otherwise it is parsed back from
   * `json` if it is sent, so unchanged rows die young instead of waiting out the diff in the old generation.
   */
  row?: Row;
  action: SyncRecordAction;
}

/** What became of an Item: sent (ok or refused), failed before sending (mapping), or skipped by the write mode. */
export interface Outcome {
  item: Item;
  ok: boolean;
  /**
   * Not sent on purpose, `error` saying why (recorded with status skipped): the sync's write mode
   * left it alone (ok false), or the destination already has it, delivered earlier with the same
   * idempotency key (ok true: it counts as delivered).
   */
  skipped?: boolean;
  error?: string;
  /** Stored with the record when set (scrubbed); see record-logs.ts for when it is not. */
  log?: RecordLog;
}

/**
 * A batch's items held as columns, not an object each: a first sync's pass-through lines, all
 * inserts. Objects that live as long as their batch is sent and recorded are promoted out of the young
 * generation, and a million a run made most of the worker's garbage collection (bench/README.md (v)).
 * Item i is keys[i], line kept[i] of `lines`, digest i of `digests`.
 */
export interface ItemColumns {
  readonly length: number;
  readonly keys: readonly string[];
  readonly lines: LineBatch;
  readonly kept: Int32Array;
  readonly digests: Digests;
  /** Every item's action. */
  readonly action: SyncRecordAction;
  /** As Item objects, for the paths that take them (the JSON path, a group of batches): the same objects on every call. */
  items(): Item[];
}

/** A batch's items: objects, or columns. */
export type Items = Item[] | ItemColumns;

/** Every item of `accepted` delivered: ok, not skipped, nothing to log. */
export interface AllAccepted {
  accepted: ItemColumns;
}

/** A batch's outcomes: one each, or all accepted. */
export type Outcomes = Outcome[] | AllAccepted;

export const itemList = (items: Items): Item[] => (Array.isArray(items) ? items : items.items());

export const outcomeCount = (outcomes: Outcomes): number => (Array.isArray(outcomes) ? outcomes.length : outcomes.accepted.length);

/** One Outcome each: for the paths that take them. */
export function outcomeList(outcomes: Outcomes): Outcome[] {
  return Array.isArray(outcomes) ? outcomes : outcomes.accepted.items().map((item): Outcome => ({ item, ok: true }));
}

export function rowAt(batch: ReadBatch, index: number): Row {
  return Array.isArray(batch) ? batch[index] : batch.row(index);
}

/** A cursor column's value as stored in syncs.current_cursor_field. */
export function cursorText(value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (value instanceof Date) return value.toISOString();
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

// What a source that can stream its changes offers the engine (live syncs: docs/live-syncs.md).
// Today PostgreSQL through logical replication; the engine speaks only this interface.
import type { Row } from "./types";

/** The model a live sync streams: its query and the column that keys its rows. */
export interface LiveModel {
  query: string;
  primaryKey: string;
}

/** Whether a source and model can run live; when not, which of the two is at fault and why. */
export type LiveCheck = { ok: true; table: string } | { ok: false; field: "source" | "model"; reason: string };

/** A slot just created: the position it starts at, and the snapshot that sees exactly what precedes it. */
export interface LiveSlot {
  lsn: string;
  /** Imported by a read (ReadOptions.snapshot) while the slot's connection stays open. */
  snapshot: string;
  /** Closes the connection that holds the snapshot. */
  release(): Promise<void>;
}

/** Changes of whole committed transactions, coalesced by key. */
export interface LiveChanges {
  /** The keys changed, as the source's text (for readKeys) and as the engine's key value. */
  keys: { text: string; value: unknown }[];
  /** The end of the last transaction included: acknowledged once these are recorded. */
  lsn: string;
  /** Row changes read (before coalescing). */
  changes: number;
  /** Commit time of the last transaction included. */
  committedAt: Date | null;
  /**
   * The source's ids of the transactions whose changes are in the batch: the read waits until each
   * is visible, since a transaction is streamed once its commit is in the WAL, a moment before
   * other sessions can see it.
   */
  xids: number[];
}

export interface LiveStream {
  /**
   * The next micro-batch: waits up to `maxWaitMs` from the first change for up to `maxKeys` keys.
   * Null when nothing arrived within `maxWaitMs` or the signal aborted.
   */
  next(options: { maxKeys: number; maxWaitMs: number; signal: AbortSignal }): Promise<LiveChanges | null>;
  /** The source may discard everything up to `lsn`: it is recorded. */
  ack(lsn: string): Promise<void>;
  close(): Promise<void>;
}

export interface LiveKeyReader {
  /**
   * The model's current rows with these keys (rows gone, or no longer matching, are absent), read
   * once the transactions `xids` are visible to it.
   */
  read(keys: string[], xids?: number[]): Promise<Row[]>;
  close(): Promise<void>;
}

/** How far a slot trails the source's current position. */
export interface LiveLag {
  bytes: number;
  active: boolean;
}

export interface LiveSource {
  /** Logical replication on, and the model one table (with a WHERE on its own columns) keyed by its primary key. */
  check(config: Row, model: LiveModel): Promise<LiveCheck>;
  /** Creates the sync's publication and slot (dropping stale ones) and exports the slot's snapshot. */
  open(config: Row, syncId: number, model: LiveModel): Promise<LiveSlot>;
  /** Streams the slot's changes after `fromLsn` (transactions that ended at or before it are skipped). */
  stream(config: Row, syncId: number, fromLsn: string): Promise<LiveStream>;
  /** Reads the model's current rows by key, on a connection kept until its close(). */
  keyReader(config: Row, model: LiveModel): LiveKeyReader;
  /** Whether the sync's slot exists. */
  exists(config: Row, syncId: number): Promise<boolean>;
  /** The slot's lag; null without a slot. */
  lag(config: Row, syncId: number): Promise<LiveLag | null>;
  /** Drops the sync's slot (ending the session that streams it) and publication; true when a slot was there. */
  drop(config: Row, syncId: number): Promise<boolean>;
}

/** The slot's and the publication's name: from the sync's id only, never from text a user wrote. */
export function liveSlotName(syncId: number): string {
  if (!Number.isSafeInteger(syncId) || syncId <= 0) throw new Error(`Not a sync id: ${syncId}`);
  return `datasync_live_${syncId}`;
}

/** LSNs ("16/B374D848") as numbers, to compare. */
export function lsnValue(lsn: string): bigint {
  const m = /^([0-9A-F]{1,8})\/([0-9A-F]{1,8})$/i.exec(lsn);
  if (!m) throw new Error(`Not an LSN: ${lsn}`);
  return (BigInt(`0x${m[1]}`) << 32n) + BigInt(`0x${m[2]}`);
}

// The fingerprints a sync delivered before this attempt, held in memory so a re-run recognises an
// unchanged row without asking the application database (the per-row sync_states probe was half the
// database CPU of a no-change re-run: bench/README.md). A fingerprint is the md5 of the sync's seed and
// the whole row, key included, so finding it among the delivered ones means this very row was
// delivered as it is now: the probe would have answered "unchanged". Anything not found goes on to
// the probe as before, so the filter can only spare work, never change a classification (64 of the
// 128 bits are kept: a changed row is taken for unchanged only if its new fingerprint shares them with
// one of the sync's others, about n / 2^64 per changed row: 2e-13 at the 4M-row limit). A sync with
// more fingerprints than the limit gets a filter of the first ones read: the others are probed.
import "server-only";
import type { Pool } from "pg";
import { sqlBuilder, viaClient } from "@/lib/db/kysely";
import { copyOut } from "@/lib/db/pg-wire/copy-out";
import { logger } from "@/lib/logger";
import { HexFingerprints, type Fingerprints } from "./fingerprints";
import { engineSettings } from "./settings";

/** Words per entry: 64 bits of the fingerprint. */
const WORDS = 2;
/** Entries per slot at most (linear probing stays short below this); the table doubles past it. */
const MAX_LOAD = 0.7;
/** Slots of a table sized for nothing in particular. */
const FIRST_CAPACITY = 1 << 16;

/** Bytes kept per fingerprint (WORDS 32-bit words). */
const ENTRY_BYTES = WORDS * 4;
/** PostgreSQL's binary COPY header: signature (11), flags (4), header extension length (4). */
const COPY_HEADER = 19;
/** A tuple of one ENTRY_BYTES bytea: field count (2), length (4), the bytes. */
const TUPLE = 6 + ENTRY_BYTES;

/** The filter holds as many fingerprints as it may: the sync's other rows are probed. */
class TooManyStates extends Error {}

export class UnchangedFilter {
  private slots: Uint32Array;
  private capacity: number;
  /** Slots enough for the most entries the filter may hold: it never grows past them. */
  private readonly maxCapacity: number;
  /** Fingerprints held (not counting any that could not be read as 32 hex digits). */
  size = 0;

  /**
   * Room for `expected` fingerprints without growing (growing re-places every entry: a third of a
   * load), and for `most` at the most.
   */
  private constructor(expected: number, most = Infinity) {
    this.maxCapacity = Math.max(FIRST_CAPACITY, Math.ceil(most / MAX_LOAD));
    // Sized to the guess itself, not to a power of two: at the 4M-row limit that is 46 MB, not 67.
    this.capacity = Math.min(this.maxCapacity, Math.max(FIRST_CAPACITY, Math.ceil(expected / MAX_LOAD)));
    this.slots = new Uint32Array(this.capacity * WORDS);
  }

  /**
   * The filter of a full re-read of `syncId`, or null when it would not pay: nothing delivered before.
   * It holds `maxStates` fingerprints at the most (memory: ~11.4 bytes each when the guess holds);
   * past them the load stops, and the rows of the fingerprints left out are probed.
   * States this run recorded in an earlier attempt stay out: the probe tells those apart ("already
   * recorded"), and they must keep being told apart for the counters to stay exact.
   */
  static async load(pool: Pool, syncId: number, runId: number, maxStates: number, expected = 0): Promise<UnchangedFilter | null> {
    if (maxStates <= 0) return null;
    // Sized by the caller's guess, not by a count(*) first: on a million states that count took as
    // long as the load itself, in the way of the run's first diff. Past the guess the table grows;
    // states a concurrent writer adds meanwhile are simply not in it.
    const sync = Number(syncId);
    const run = Number(runId);
    // The sync's states wherever they are: sync_states rows, and the block entries no row overrides
    // (state-blocks.ts), whose md5s are uuids.
    const select = `SELECT decode(left(fingerprint, 16), 'hex') FROM sync_states
       WHERE sync_id = ${sync} AND last_run_id <> ${run} AND last_status IN ('success', 'skipped') AND length(fingerprint) = 32
     UNION ALL
     SELECT substring(uuid_send(e.f) FROM 1 FOR 8) FROM sync_state_blocks b
      CROSS JOIN LATERAL unnest(b.keys, b.fingerprints, string_to_array(b.statuses, NULL)) AS e(k, f, s)
      WHERE b.sync_id = ${sync} AND b.run_id <> ${run} AND e.s <> 'f' AND e.f IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM sync_states o WHERE o.sync_id = ${sync} AND o.primary_key = e.k)`;
    const filter = new UnchangedFilter(Math.min(expected, maxStates), maxStates);
    const client = await pool.connect();
    let broken = false;
    try {
      // Binary COPY of the first 8 bytes, decoded from hex by the database: fixed-size tuples the
      // worker reads as two integers each (hex decoding here cost a third of a no-change re-run's
      // filter).
      const stream = client.query(copyOut(`COPY (${select}) TO STDOUT (FORMAT binary)`));
      const reader = new TupleReader(filter, maxStates);
      for await (const chunk of stream as AsyncIterable<Buffer>) reader.push(chunk);
      return filter.size > 0 ? filter : null;
    } catch (err) {
      // Left in the middle of its COPY: the connection is not given back to the pool.
      if (err instanceof TooManyStates) {
        broken = true;
        return filter;
      }
      // A fingerprint that is not hex (none the engine writes): the run probes every row, as without a filter.
      if ((err as { code?: string }).code === "22023") return null;
      broken = true;
      throw err;
    } finally {
      client.release(broken);
    }
  }

  /** True when the i-th of `fingerprints` was delivered before: the row it fingerprints is unchanged. */
  hasAt(fingerprints: Fingerprints, i: number): boolean {
    const w0 = fingerprints.word(i, 0);
    const w1 = fingerprints.word(i, 1);
    // A fingerprint that is not 32 hex digits (a word of -1) is never "unchanged".
    if (w0 < 0 || w1 < 0 || fingerprints.word(i, 2) < 0 || fingerprints.word(i, 3) < 0) return false;
    return this.find(w0, w1) >= 0;
  }

  /** True when `fp` (32 hex digits) was delivered before: one fingerprint at a time (the engine uses hasAt). */
  has(fp: string): boolean {
    return this.hasAt(new HexFingerprints([fp]), 0);
  }

  /** Adds a fingerprint by its first two 32-bit words. */
  add(w0: number, w1: number): void {
    // All-zero marks an empty slot: such a fingerprint is left to the probe.
    if ((w0 | w1) === 0) return;
    if (this.size + 1 > this.capacity * MAX_LOAD) this.grow();
    const s = this.slots;
    const capacity = this.capacity;
    let slot = w0 % capacity;
    for (;;) {
      const base = slot * WORDS;
      if ((s[base] | s[base + 1]) === 0) {
        s[base] = w0;
        s[base + 1] = w1;
        this.size++;
        return;
      }
      if (s[base] === w0 && s[base + 1] === w1) return;
      slot = slot + 1 === capacity ? 0 : slot + 1;
    }
  }

  /**
   * Twice the slots (at most the limit's), every entry placed again. Doubling past the limit's size
   * would hold the limit's entries in up to twice the memory it is set for.
   */
  private grow(): void {
    const capacity = Math.min(this.capacity * 2, this.maxCapacity);
    if (capacity === this.capacity) {
      // At the limit's size: more entries than the limit only by a caller that does not hold to it.
      if (this.size + 1 >= capacity) throw new TooManyStates();
      return;
    }
    const old = this.slots;
    this.slots = new Uint32Array(capacity * WORDS);
    this.capacity = capacity;
    this.size = 0;
    for (let base = 0; base < old.length; base += WORDS) {
      if ((old[base] | old[base + 1]) !== 0) this.add(old[base], old[base + 1]);
    }
  }

  private find(w0: number, w1: number): number {
    if ((w0 | w1) === 0) return -1;
    const s = this.slots;
    const capacity = this.capacity;
    let slot = w0 % capacity;
    for (;;) {
      const base = slot * WORDS;
      if ((s[base] | s[base + 1]) === 0) return -1;
      if (s[base] === w0 && s[base + 1] === w1) return slot;
      slot = slot + 1 === capacity ? 0 : slot + 1;
    }
  }
}

/**
 * The filter for a run (or a plan) of `ctx.sync`, when it pays: the sync tracks rows and the whole
 * model is read again (an incremental read from a saved cursor reads too few rows to pay for loading
 * every fingerprint; full refresh sends every row anyway).
 */
export function loadUnchangedFilter(
  pool: Pool,
  ctx: { sync: { id: number; syncMode: string }; run: { id: number } },
  read: { noStates: boolean; fromCursor: boolean },
): PendingFilter {
  if (read.noStates || read.fromCursor || ctx.sync.syncMode === "full_refresh") return null;
  // Loaded while the source starts answering; the first batch's diff waits for it. A filter that
  // cannot be loaded only means every row is probed.
  return loadSized(pool, ctx.sync.id, ctx.run.id, engineSettings.unchangedFilterMaxRows).catch((err: unknown) => {
    logger.warn({ syncId: ctx.sync.id, err: err instanceof Error ? err.message : String(err) }, "unchanged filter not loaded; every row is probed");
    return null;
  });
}

/**
 * The filter, its table sized by a cheap guess: the rows the sync's last read read (one row of
 * sync_runs; test runs read one row and say nothing of the sync's size). Growing a table re-places
 * every entry, and a count(*) of the states took as long as the load.
 */
async function loadSized(pool: Pool, syncId: number, runId: number, maxStates: number): Promise<UnchangedFilter | null> {
  const rows = await viaClient(
    pool,
    sqlBuilder()
      .selectFrom("sync_runs")
      .select("total_query_rows")
      .where("sync_id", "=", syncId)
      .where("id", "<>", runId)
      .where("sync_run_type", "=", "general")
      .where("status", "in", ["success", "failed", "canceled"])
      .where("total_query_rows", ">", 0)
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .limit(1),
  );
  return UnchangedFilter.load(pool, syncId, runId, maxStates, rows[0]?.total_query_rows ?? 0);
}

/** A filter, none, or one still loading. */
export type PendingFilter = UnchangedFilter | null | Promise<UnchangedFilter | null>;

/** Reads binary COPY tuples of one 8-byte value across chunk boundaries into a filter. */
class TupleReader {
  private carry: Buffer | null = null;
  private headerLeft = COPY_HEADER;

  constructor(
    private readonly filter: UnchangedFilter,
    private readonly limit: number,
  ) {}

  push(chunk: Buffer): void {
    let buf = this.carry ? Buffer.concat([this.carry, chunk]) : chunk;
    if (this.headerLeft > 0) {
      const skip = Math.min(this.headerLeft, buf.length);
      this.headerLeft -= skip;
      buf = buf.subarray(skip);
    }
    let at = 0;
    // The trailer (field count -1) is 2 bytes and never a whole tuple; a NULL cannot occur (the
    // fingerprints are 32 characters). Bytes read by index: Buffer's readUInt32BE and friends, five
    // calls a tuple, were most of the load's time.
    const limit = this.limit;
    for (; at + TUPLE <= buf.length; at += TUPLE) {
      if (buf[at] !== 0 || buf[at + 1] !== 1 || buf[at + 2] !== 0 || buf[at + 3] !== 0 || buf[at + 4] !== 0 || buf[at + 5] !== ENTRY_BYTES) {
        throw new Error("unexpected tuple in the fingerprints' COPY");
      }
      if (this.filter.size >= limit) throw new TooManyStates();
      const b = at + 6;
      this.filter.add(
        ((buf[b] << 24) | (buf[b + 1] << 16) | (buf[b + 2] << 8) | buf[b + 3]) >>> 0,
        ((buf[b + 4] << 24) | (buf[b + 5] << 16) | (buf[b + 6] << 8) | buf[b + 7]) >>> 0,
      );
    }
    this.carry = at < buf.length ? buf.subarray(at) : null;
  }
}

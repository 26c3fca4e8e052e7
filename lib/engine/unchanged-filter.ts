// The fingerprints a sync delivered before this attempt, held in memory so a re-run recognises an
// unchanged row without asking the application database (the per-row sync_states probe was half the
// database CPU of a no-change re-run: bench/README.md). A fingerprint is the md5 of the sync's seed and
// the whole row, key included, so finding it among the delivered ones means this very row was
// delivered as it is now: the probe would have answered "unchanged". Anything not found goes on to
// the probe as before, so the filter can only spare work, never change a classification (96 of the
// 128 bits are kept: a changed row is taken for unchanged only if its new fingerprint shares them with
// one of the sync's others, about n / 2^96 per changed row).
import "server-only";
import type { Pool } from "pg";
import { to as copyTo } from "pg-copy-streams";
import { engineSettings } from "./settings";

/** Words per entry: 96 bits of the fingerprint. */
const WORDS = 3;
/** Entries per slot at most (linear probing stays short below this). */
const MAX_LOAD = 0.7;

/** One hex digit's value, or -1 (upper and lower case, as md5() and node's hash() print lower). */
function nibble(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 97 && code <= 102) return code - 87;
  if (code >= 65 && code <= 70) return code - 55;
  return -1;
}

export class UnchangedFilter {
  private readonly slots: Uint32Array;
  private readonly capacity: number;
  /** Fingerprints held (not counting any that could not be read as 32 hex digits). */
  size = 0;

  private constructor(expected: number) {
    this.capacity = Math.max(16, Math.ceil(expected / MAX_LOAD));
    this.slots = new Uint32Array(this.capacity * WORDS);
  }

  /**
   * The filter of a full re-read of `syncId`, or null when it would not pay or would not fit: nothing
   * tracked, or more than `maxStates` fingerprints (memory: ~17 bytes per tracked row).
   * States this run recorded in an earlier attempt stay out: the probe tells those apart ("already
   * recorded"), and they must keep being told apart for the counters to stay exact.
   */
  static async load(pool: Pool, syncId: number, runId: number, maxStates: number): Promise<UnchangedFilter | null> {
    if (maxStates <= 0) return null;
    const where = `sync_id = ${Number(syncId)} AND last_run_id <> ${Number(runId)} AND last_status IN ('success', 'skipped') AND fingerprint <> ''`;
    const client = await pool.connect();
    try {
      // Counted first so the table is sized once; states a concurrent writer adds meanwhile are simply not in it.
      const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM sync_states WHERE ${where}`);
      const count = rows[0]?.n ?? 0;
      if (count === 0 || count > maxStates) return null;
      const filter = new UnchangedFilter(count);
      const stream = client.query(copyTo(`COPY (SELECT fingerprint FROM sync_states WHERE ${where}) TO STDOUT`));
      let carry: Buffer | null = null;
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        const buf: Buffer = carry ? Buffer.concat([carry, chunk]) : chunk;
        let start = 0;
        for (let end = buf.indexOf(10, start); end >= 0; end = buf.indexOf(10, start)) {
          if (end - start === 32 && filter.size < count) filter.addBytes(buf, start);
          start = end + 1;
        }
        carry = start < buf.length ? buf.subarray(start) : null;
      }
      return filter;
    } finally {
      client.release();
    }
  }

  /** True when `fp` (32 hex digits) was delivered before: the row it fingerprints is unchanged. */
  has(fp: string): boolean {
    if (fp.length !== 32) return false;
    const w0 = UnchangedFilter.word(fp, 0);
    const w1 = UnchangedFilter.word(fp, 8);
    const w2 = UnchangedFilter.word(fp, 16);
    if (w0 < 0 || w1 < 0 || w2 < 0) return false;
    return this.find(w0 >>> 0, w1 >>> 0, w2 >>> 0) >= 0;
  }

  private addBytes(buf: Buffer, at: number): void {
    const words = [0, 0, 0];
    for (let w = 0; w < WORDS; w++) {
      let value = 0;
      for (let i = 0; i < 8; i++) {
        const n = nibble(buf[at + w * 8 + i]);
        if (n < 0) return;
        value = value * 16 + n;
      }
      words[w] = value >>> 0;
    }
    // All-zero marks an empty slot: such a fingerprint is left to the probe.
    if ((words[0] | words[1] | words[2]) === 0) return;
    let slot = words[0] % this.capacity;
    for (;;) {
      const base = slot * WORDS;
      const s = this.slots;
      if ((s[base] | s[base + 1] | s[base + 2]) === 0) {
        s[base] = words[0];
        s[base + 1] = words[1];
        s[base + 2] = words[2];
        this.size++;
        return;
      }
      if (s[base] === words[0] && s[base + 1] === words[1] && s[base + 2] === words[2]) return;
      slot = slot + 1 === this.capacity ? 0 : slot + 1;
    }
  }

  private find(w0: number, w1: number, w2: number): number {
    if ((w0 | w1 | w2) === 0) return -1;
    let slot = w0 % this.capacity;
    const s = this.slots;
    for (;;) {
      const base = slot * WORDS;
      if ((s[base] | s[base + 1] | s[base + 2]) === 0) return -1;
      if (s[base] === w0 && s[base + 1] === w1 && s[base + 2] === w2) return slot;
      slot = slot + 1 === this.capacity ? 0 : slot + 1;
    }
  }

  /** The 32-bit word of 8 hex digits at `at`, or -1. */
  private static word(text: string, at: number): number {
    let value = 0;
    for (let i = 0; i < 8; i++) {
      const n = nibble(text.charCodeAt(at + i));
      if (n < 0) return -1;
      value = value * 16 + n;
    }
    return value;
  }
}

/**
 * The filter for a run (or a plan) of `ctx.sync`, when it pays: the sync tracks rows and the whole
 * model is read again (an incremental read from a saved cursor reads too few rows to pay for loading
 * every fingerprint; full refresh sends every row anyway).
 */
export async function loadUnchangedFilter(
  pool: Pool,
  ctx: { sync: { id: number; syncMode: string }; run: { id: number } },
  read: { noStates: boolean; fromCursor: boolean },
): Promise<UnchangedFilter | null> {
  if (read.noStates || read.fromCursor || ctx.sync.syncMode === "full_refresh") return null;
  return UnchangedFilter.load(pool, ctx.sync.id, ctx.run.id, engineSettings.unchangedFilterMaxRows);
}

// Change-tracking states in blocks (sync_state_blocks): a run that began with no state for its sync
// writes each recorded batch's states as one row, in the transaction of its record blocks, instead of
// a sync_states row per key. A state row costs a heap tuple and a B-tree entry (~137 bytes, and most
// of the application database's CPU in a first sync: bench/README.md); a block entry ~25 bytes. Later
// changes go to sync_states, whose row for a key overrides the key's block entry (fingerprint '-' in
// it: no state). Readers by key use the SQL function ds_states_of (row, else block entry), whole-sync
// readers the view sync_state_entries or the pages below.
import "server-only";
import type { Pool, PoolClient } from "pg";
import { BinaryCopyInput, isHex32 } from "@/lib/db/pg-wire/binary-copy-in";

/** A state's status letter in a block. */
const LETTER = { success: "s", failed: "f", skipped: "k" } as const;

export type BlockStatus = keyof typeof LETTER;

/**
 * Orders two texts as collation "C" does (UTF-8 bytes, that is code points). JavaScript's `<` orders
 * UTF-16 units, which differs when a surrogate (U+10000 and up) meets U+E000–U+FFFF.
 */
export function compareC(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x - y;
  }
  return a.length - b.length;
}

/**
 * Writes one batch's states as a block, in the caller's transaction. The keys must be new to the sync
 * (the run began with no state, and a run records a key once). False, writing nothing, when a
 * fingerprint to keep is not an md5 in hex (never written by the engine): the caller writes rows.
 */
export async function writeStateBlock(
  client: PoolClient,
  syncId: number,
  runId: number,
  keys: readonly string[],
  fingerprints: readonly string[],
  statuses: readonly BlockStatus[],
): Promise<boolean> {
  if (keys.length === 0) return true;
  const uuids = new Array<string | null>(keys.length);
  let letters = "";
  let first = keys[0];
  let last = keys[0];
  for (let i = 0; i < keys.length; i++) {
    const status = statuses[i];
    // Never delivered: '' (a failed insert) is NULL in the block.
    if (status === "failed" && fingerprints[i] === "") uuids[i] = null;
    else if (isHex32(fingerprints[i])) uuids[i] = fingerprints[i];
    else return false;
    letters += LETTER[status];
    const key = keys[i];
    if (compareC(key, first) < 0) first = key;
    if (compareC(key, last) > 0) last = key;
  }
  const input = new BinaryCopyInput();
  input.row(8).int4(syncId).int4(runId).int4(keys.length).text(first).text(last).textArray(keys).uuidArray(uuids);
  // The statuses, last: a text field is appended to the row started above.
  input.text(letters);
  await input.copy(client, "COPY sync_state_blocks (sync_id, run_id, size, first_key, last_key, keys, fingerprints, statuses) FROM STDIN");
  return true;
}

/** True when the sync has a state anywhere (a row, even one saying "none", or a block). */
export async function tracksAnything(pool: Pool, syncId: number): Promise<boolean> {
  const { rows } = await pool.query<{ found: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM sync_states WHERE sync_id = $1) OR EXISTS (SELECT 1 FROM sync_state_blocks WHERE sync_id = $1) AS found`,
    [syncId],
  );
  return rows[0]?.found ?? true;
}

/** The sync's states, rows and block entries alike, not written by `exceptRun`. */
export async function countStates(pool: Pool, syncId: number, exceptRun = 0): Promise<number> {
  const { rows } = await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM sync_state_entries WHERE sync_id = $1 AND last_run_id <> $2", [
    syncId,
    exceptRun,
  ]);
  return rows[0]?.n ?? 0;
}

/** A state as the whole-sync readers see it. */
export interface StateRow {
  primary_key: string;
  fingerprint: string;
  last_status: string;
  last_run_id: number;
}

/**
 * The sync's states in pages: its sync_states rows in key order, then its blocks one by one (their
 * entries no row overrides). `exceptRun`'s blocks are left out (a run's own states are never gone).
 */
export async function* statePages(pool: Pool, syncId: number, exceptRun: number, pageSize: number): AsyncGenerator<StateRow[]> {
  let after = "";
  for (;;) {
    const { rows } = await pool.query<StateRow>(
      `SELECT primary_key, fingerprint, last_status::text, last_run_id FROM sync_states
       WHERE sync_id = $1 AND primary_key > $2 AND fingerprint <> '-' ORDER BY primary_key LIMIT $3`,
      [syncId, after, pageSize],
    );
    if (rows.length === 0) break;
    after = rows[rows.length - 1].primary_key;
    yield rows;
  }
  const { rows: blocks } = await pool.query<{ id: string; first_key: string; last_key: string }>(
    "SELECT id::text, first_key, last_key FROM sync_state_blocks WHERE sync_id = $1 AND run_id <> $2 ORDER BY first_key, id",
    [syncId, exceptRun],
  );
  for (const block of blocks) {
    // Entries a row overrides are the row's (read above, or none). The rows of the block's key range
    // are read once and hashed (a subquery without outer references), not probed entry by entry.
    const { rows } = await pool.query<StateRow>(
      `SELECT e.k AS primary_key, coalesce(replace(e.f::text, '-', ''), '') AS fingerprint,
              CASE e.s WHEN 's' THEN 'success' WHEN 'f' THEN 'failed' ELSE 'skipped' END AS last_status, b.run_id AS last_run_id
         FROM sync_state_blocks b
        CROSS JOIN LATERAL unnest(b.keys, b.fingerprints, string_to_array(b.statuses, NULL)) AS e(k, f, s)
        WHERE b.id = $1::bigint
          AND e.k NOT IN (SELECT o.primary_key FROM sync_states o WHERE o.sync_id = $2 AND o.primary_key BETWEEN $3 AND $4)`,
      [block.id, syncId, block.first_key, block.last_key],
    );
    if (rows.length > 0) yield rows;
  }
}

// Change-tracking states in blocks (sync_state_blocks): a run that began with no state for its sync
// writes each recorded batch's states as one row, in the transaction of its record blocks, instead of
// a sync_states row per key. A state row costs a heap tuple and a B-tree entry (~137 bytes, and most
// of the application database's CPU in a first sync: bench/README.md); a block entry ~25 bytes. Later
// changes go to sync_states, whose row for a key overrides the key's block entry (fingerprint '-' in
// it: no state). Readers by key use the SQL function ds_states_of (row, else block entry), whole-sync
// readers the view sync_state_entries or the pages below.
import "server-only";
import { sql, type Expression } from "kysely";
import type { Pool, PoolClient } from "pg";
import type { DeclaredViews } from "@/lib/db/declared-relations";
import { compiledByShape, sqlBuilder, viaClient } from "@/lib/db/kysely";
import { BinaryCopyInput, isHex32 } from "@/lib/db/pg-wire/binary-copy-in";
import type { DigestSource } from "./fingerprints";
import { stateBlocksLockKey } from "./locks";

/** The sync's blocks, to select from. */
const blocksOf = (syncId: number) => sqlBuilder().selectFrom("sync_state_blocks").where("sync_id", "=", syncId);

/** A block's entries as the relation e(k, f, s): key, fingerprint (uuid, null: never delivered), status letter. */
const blockEntries = (keys: Expression<string[] | null>, fingerprints: Expression<string[] | null>, statuses: Expression<string>) =>
  sql<{ k: string; f: string | null; s: string }>`unnest(${keys}, ${fingerprints}, string_to_array(${statuses}, NULL))`.as<"e">(sql`e(k, f, s)`);

/** A state's status letter in a block. */
const LETTER = { success: "s", failed: "f", skipped: "k" } as const;

export type BlockStatus = keyof typeof LETTER;

/** A state's fingerprint: hex, where it was computed (copied as bytes), or '' (never delivered). */
export type StateFingerprint = string | DigestSource;

/** The fingerprint as sync_states stores it. */
export const fingerprintText = (f: StateFingerprint): string => (typeof f === "string" ? f : f.fingerprint);

/** Writes f's 16 bytes at buf[at] (hex checked by the caller); false for '' (never delivered: NULL). */
function putDigest(f: StateFingerprint, buf: Buffer, at: number): boolean {
  if (typeof f !== "string") {
    if (f.digestInto) {
      f.digestInto(buf, at);
      return true;
    }
    f = f.fingerprint;
  }
  if (f === "") return false;
  buf.write(f, at, 16, "hex");
  return true;
}

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

/** Bytes of `s` in UTF-8 as the COPY writes it (a lone surrogate becomes U+FFFD: 3 bytes). */
function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c < 0xdc00 && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** True when `s` has a UTF-16 unit at or past U+D800, where UTF-16 order and collation C differ. */
function hasWide(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0xd800) return true;
  return false;
}

/**
 * A key in block order, as the SQL function ds_block_key writes it: its UTF-8 length in 10 digits,
 * then the key, compared bytewise. A source read in key order (integers too, whose text bytewise
 * interleaves lengths) then fills blocks whose ranges do not overlap.
 */
export function blockKey(key: string): string {
  return blockKeyOf(utf8Length(key), key);
}

function blockKeyOf(utf8Bytes: number, key: string): string {
  return String(utf8Bytes).padStart(10, "0") + key;
}

/**
 * Keys a block holds at most. A lookup reads the blocks whose key range holds the key (one for a
 * source read in key order) and scans the keys there: small blocks keep that scan short and a 1%
 * change from touching every block; ~2 bytes of a block's own overhead per key at this size.
 */
export const BLOCK_KEYS = 64;

/**
 * Writes one batch's states as blocks of BLOCK_KEYS keys in block order, in the caller's transaction.
 * The keys must be new to the sync (the run began with no state, and a run records a key once).
 * False, writing nothing, when a fingerprint to keep is not an md5 in hex (none the engine writes) or
 * when the batch's key range meets a block already written (a source that returns its keys in no
 * order): the caller writes rows, so a sync's blocks never overlap and a key's block is the one with
 * the greatest first_key at or below it (ds_block_states). The check and the insert hold a lock of the
 * sync until the caller commits, so the batches in flight are checked against each other.
 */
export async function writeStateBlocks(
  client: PoolClient,
  syncId: number,
  runId: number,
  keys: readonly string[],
  fingerprints: readonly StateFingerprint[],
  statuses: readonly BlockStatus[],
): Promise<boolean> {
  if (keys.length === 0) return true;
  for (let i = 0; i < keys.length; i++) {
    const f = fingerprints[i];
    if (typeof f !== "string" && f.digestInto) continue;
    // Never delivered: '' (a failed insert) is NULL in the block.
    const text = fingerprintText(f);
    if (!(statuses[i] === "failed" && text === "") && !isHex32(text)) return false;
  }
  const order = blockOrder(keys);
  const at = (j: number) => (order === null ? j : order[j]);
  const low = blockKey(keys[at(0)]);
  const high = blockKey(keys[at(keys.length - 1)]);
  await client.query("SELECT pg_advisory_xact_lock($1, $2)", stateBlocksLockKey(syncId));
  // Blocks do not overlap, so only one starting below the range can reach into it: the last one.
  const [{ meets }] = await viaClient(client, meetsQuery("meets", { syncId, low, high }));
  if (meets === true) return false;
  const input = new BinaryCopyInput();
  for (let start = 0; start < keys.length; start += BLOCK_KEYS) {
    const end = Math.min(keys.length, start + BLOCK_KEYS);
    const blockKeys = order === null ? keys.slice(start, end) : order.slice(start, end).map((i) => keys[i]);
    let letters = "";
    for (let j = start; j < end; j++) letters += LETTER[statuses[at(j)]];
    const first = start === 0 ? low : blockKey(blockKeys[0]);
    const last = end === keys.length ? high : blockKey(blockKeys[blockKeys.length - 1]);
    const row = input.row(8).int4(syncId).int4(runId).int4(blockKeys.length).text(first).text(last);
    const from = start;
    row.textArray(blockKeys).digestArray(end - start, (j, buf, to) => putDigest(fingerprints[at(from + j)], buf, to));
    // The statuses, last: a text field is appended to the row started above.
    input.text(letters);
  }
  await input.copy(client, "COPY sync_state_blocks (sync_id, run_id, size, first_key, last_key, keys, fingerprints, statuses) FROM STDIN");
  return true;
}

/** Whether the batch's key range meets a block of the sync already written (built once: it runs per batch). */
const meetsQuery = compiledByShape((_shape: "meets", at: { syncId: number; low: string; high: string }) =>
  sqlBuilder().selectNoFrom((eb) =>
    eb
      .or([
        eb.exists(blocksOf(at.syncId).select(sql.lit(1).as("one")).where("first_key", ">=", at.low).where("first_key", "<=", at.high)),
        eb.exists(
          eb
            .selectFrom(blocksOf(at.syncId).select("last_key").where("first_key", "<", at.low).orderBy("first_key", "desc").limit(1).as("x"))
            .select(sql.lit(1).as("one"))
            .where("x.last_key", ">=", at.low),
        ),
      ])
      .as("meets"),
  ),
);

/**
 * The keys' positions in block order (collation C), or null when they are in it already: a source
 * read in key order, the common case, costs one pass and no block-key text per key. Otherwise V8
 * sorts the block keys without a comparator natively (several times faster than with one), in UTF-16
 * order, which is C's unless a key has a unit at or past U+D800: then compareC sorts. A key holds no
 * NUL (keyText refuses it), so "block key, NUL, position" sorts by the block key first.
 */
function blockOrder(keys: readonly string[]): number[] | null {
  const lengths = new Int32Array(keys.length);
  let wide = false;
  let sorted = true;
  for (let i = 0; i < keys.length; i++) {
    lengths[i] = utf8Length(keys[i]);
    if (!wide && hasWide(keys[i])) wide = true;
    if (sorted && i > 0) {
      const [a, b] = [lengths[i - 1], lengths[i]];
      sorted = a < b || (a === b && (wide ? compareC(keys[i - 1], keys[i]) < 0 : keys[i - 1] < keys[i]));
    }
  }
  if (sorted) return null;
  const tagged = new Array<string>(keys.length);
  for (let i = 0; i < keys.length; i++) tagged[i] = `${blockKeyOf(lengths[i], keys[i])}\u0000${i}`;
  if (wide) tagged.sort(compareC);
  else tagged.sort();
  return tagged.map((t) => Number(t.slice(t.lastIndexOf("\u0000") + 1)));
}

/** True when the sync has a state anywhere (a row, even one saying "none", or a block). */
export async function tracksAnything(pool: Pool, syncId: number): Promise<boolean> {
  const [{ found }] = await viaClient(
    pool,
    sqlBuilder().selectNoFrom((eb) =>
      eb
        .or([
          eb.exists(eb.selectFrom("sync_states").select(sql.lit(1).as("one")).where("sync_id", "=", syncId)),
          eb.exists(blocksOf(syncId).select(sql.lit(1).as("one"))),
        ])
        .as("found"),
    ),
  );
  return found === true;
}

/** The sync's states, rows and block entries alike, not written by `exceptRun`. */
export async function countStates(pool: Pool, syncId: number, exceptRun = 0): Promise<number> {
  const [{ n }] = await viaClient(
    pool,
    sqlBuilder()
      .withTables<DeclaredViews>()
      .selectFrom("sync_state_entries")
      .select((eb) => eb.cast<number>(eb.fn.countAll(), "int4").as("n"))
      .where("sync_id", "=", syncId)
      .where("last_run_id", "<>", exceptRun),
  );
  return n;
}

/** A state as the whole-sync readers see it. */
export interface StateRow {
  primary_key: string;
  fingerprint: string;
  last_status: string;
  last_run_id: number;
}

/**
 * The sync's states in pages: its sync_states rows in key order, then its blocks' entries that no
 * row overrides. `exceptRun`'s blocks are left out (a run's own states are never gone).
 */
export async function* statePages(pool: Pool, syncId: number, exceptRun: number, pageSize: number): AsyncGenerator<StateRow[]> {
  let after = "";
  for (;;) {
    const rows: StateRow[] = await viaClient(
      pool,
      sqlBuilder()
        .selectFrom("sync_states")
        .select(["primary_key", "fingerprint", "last_status", "last_run_id"])
        .where("sync_id", "=", syncId)
        .where("primary_key", ">", after)
        .where("fingerprint", "<>", "-")
        .orderBy("primary_key")
        .limit(pageSize),
    );
    if (rows.length === 0) break;
    after = rows[rows.length - 1].primary_key;
    yield rows;
  }
  // Blocks in block order, about a page of keys at a time (first_key is unique in a sync). Entries a
  // row overrides are the row's (read above, or none).
  let afterKey = "";
  const blocksPerPage = Math.max(1, Math.ceil(pageSize / BLOCK_KEYS));
  for (;;) {
    const [{ last_first: lastFirst }] = await viaClient(
      pool,
      sqlBuilder()
        .selectFrom(blocksOf(syncId).select("first_key").where("first_key", ">", afterKey).orderBy("first_key").limit(blocksPerPage).as("x"))
        .select((eb) => eb.fn.max<string | null>("x.first_key").as("last_first")),
    );
    if (lastFirst === null) return;
    const rows: StateRow[] = await viaClient(
      pool,
      sqlBuilder()
        .selectFrom("sync_state_blocks as b")
        .crossJoinLateral((eb) => blockEntries(eb.ref("b.keys"), eb.ref("b.fingerprints"), eb.ref("b.statuses")))
        .select((eb) => [
          "e.k as primary_key",
          sql<string>`coalesce(replace(${eb.ref("e.f")}::text, '-', ''), '')`.as("fingerprint"),
          sql<string>`CASE ${eb.ref("e.s")} WHEN 's' THEN 'success' WHEN 'f' THEN 'failed' ELSE 'skipped' END`.as("last_status"),
          "b.run_id as last_run_id",
        ])
        .where("b.sync_id", "=", syncId)
        .where("b.first_key", ">", afterKey)
        .where("b.first_key", "<=", lastFirst)
        .where("b.run_id", "<>", exceptRun)
        .where((eb) =>
          eb.not(eb.exists(eb.selectFrom("sync_states as o").select(sql.lit(1).as("one")).where("o.sync_id", "=", syncId).whereRef("o.primary_key", "=", "e.k"))),
        ),
    );
    afterKey = lastFirst;
    if (rows.length > 0) yield rows;
  }
}

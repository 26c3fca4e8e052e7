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
import { BLOCK_KEYS, blockKey, keyGroups, type KeyGroup } from "./block-order";
import type { Digests, DigestSource } from "./fingerprints";
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

/** The fingerprints of a batch's keys, by position: each its own, or the batch's digests (a first sync's columns). */
export type StateFingerprints = readonly StateFingerprint[] | Digests;

/** The i-th fingerprint as sync_states stores it. */
export const fingerprintTextAt = (fingerprints: StateFingerprints, i: number): string =>
  isDigests(fingerprints) ? fingerprints.hex(i) : fingerprintText(fingerprints[i]);

const isDigests = (f: StateFingerprints): f is Digests => !Array.isArray(f);

/** Writes the i-th fingerprint's 16 bytes at buf[at] (hex checked by the caller); false for '' (never delivered: NULL). */
function putDigest(fingerprints: StateFingerprints, i: number, buf: Buffer, at: number): boolean {
  if (isDigests(fingerprints)) {
    fingerprints.copy(i, buf, at);
    return true;
  }
  let f = fingerprints[i];
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
 * The status letters of positions[start, end): one string made, where all are the same (a first
 * sync's blocks, all delivered), instead of one per letter added (a million a first sync).
 */
function statusLetters(statuses: readonly BlockStatus[], positions: readonly number[], start: number, end: number): string {
  const first = statuses[positions[start]];
  let j = start + 1;
  while (j < end && statuses[positions[j]] === first) j++;
  if (j === end) return LETTER[first].repeat(end - start);
  let letters = "";
  for (let k = start; k < end; k++) letters += LETTER[statuses[positions[k]]];
  return letters;
}

/**
 * Writes one batch's states as blocks of BLOCK_KEYS keys in block order, in the caller's transaction,
 * and answers the positions of the keys it left for the caller to write as rows (none: all in blocks).
 * The keys must be new to the sync (the run began with no state, and a run records a key once). All
 * are left when a fingerprint to keep is not an md5 in hex (none the engine writes); a group of keys
 * (block-order.ts:keyGroups) is left when its range meets a block already written (a source that
 * returns its keys in no order), so a sync's blocks never overlap and a key's block is the one with
 * the greatest first_key at or below it (ds_block_states). The check and the insert hold a lock of the
 * sync until the caller commits, so the batches in flight are checked against each other.
 */
export async function writeStateBlocks(
  client: PoolClient,
  syncId: number,
  runId: number,
  keys: readonly string[],
  fingerprints: StateFingerprints,
  statuses: readonly BlockStatus[],
): Promise<number[]> {
  if (keys.length === 0) return [];
  for (let i = 0; i < keys.length && !isDigests(fingerprints); i++) {
    const f = fingerprints[i];
    if (typeof f !== "string" && f.digestInto) continue;
    // Never delivered: '' (a failed insert) is NULL in the block.
    const text = fingerprintText(f);
    if (!(statuses[i] === "failed" && text === "") && !isHex32(text)) return keys.map((_, i) => i);
  }
  const { groups, left } = keyGroups(keys);
  await client.query("SELECT pg_advisory_xact_lock($1, $2)", stateBlocksLockKey(syncId));
  const meeting = await groupsMeetingBlocks(client, syncId, groups);
  const input = new BinaryCopyInput();
  let blocks = 0;
  groups.forEach((group, g) => {
    const { positions } = group;
    if (meeting.has(g)) {
      left.push(...positions);
      return;
    }
    for (let start = 0; start < positions.length; start += BLOCK_KEYS) {
      const end = Math.min(positions.length, start + BLOCK_KEYS);
      const blockKeys = new Array<string>(end - start);
      for (let j = start; j < end; j++) blockKeys[j - start] = keys[positions[j]];
      const letters = statusLetters(statuses, positions, start, end);
      const first = start === 0 ? group.low : blockKey(blockKeys[0]);
      const last = end === positions.length ? group.high : blockKey(blockKeys[blockKeys.length - 1]);
      const row = input.row(8).int4(syncId).int4(runId).int4(blockKeys.length).text(first).text(last);
      row.textArray(blockKeys).digestArray(end - start, (j, buf, to) => putDigest(fingerprints, positions[start + j], buf, to));
      // The statuses, last: a text field is appended to the row started above.
      input.text(letters);
      blocks++;
    }
  });
  if (blocks > 0) await input.copy(client, "COPY sync_state_blocks (sync_id, run_id, size, first_key, last_key, keys, fingerprints, statuses) FROM STDIN");
  return left;
}

/**
 * The groups whose key range meets a block of the sync already written, by index. Blocks do not
 * overlap, so of those starting below a range only the last can reach into it.
 */
async function groupsMeetingBlocks(client: PoolClient, syncId: number, groups: readonly KeyGroup[]): Promise<Set<number>> {
  const rows = await viaClient(client, meetingQuery("meeting", { syncId, lows: groups.map((g) => g.low), highs: groups.map((g) => g.high) }));
  // WITH ORDINALITY counts from 1 (a bigint: text through pg).
  return new Set(rows.map((r) => Number(r.g) - 1));
}

/** Built once: it runs per recorded batch. */
const meetingQuery = compiledByShape((_shape: "meeting", at: { syncId: number; lows: string[]; highs: string[] }) =>
  sqlBuilder()
    .selectFrom(sql<{ low: string; high: string; g: string }>`unnest(${at.lows}::text[], ${at.highs}::text[]) WITH ORDINALITY`.as<"r">(sql`r(low, high, g)`))
    .select("r.g")
    .where((eb) =>
      eb.or([
        eb.exists(
          eb
            .selectFrom("sync_state_blocks as b")
            .select(sql.lit(1).as("one"))
            .where("b.sync_id", "=", at.syncId)
            .whereRef("b.first_key", ">=", "r.low")
            .whereRef("b.first_key", "<=", "r.high"),
        ),
        eb.exists(
          eb
            .selectFrom((inner) =>
              inner
                .selectFrom("sync_state_blocks as b")
                .select("b.last_key")
                .where("b.sync_id", "=", at.syncId)
                .whereRef("b.first_key", "<", "r.low")
                .orderBy("b.first_key", "desc")
                .limit(1)
                .as("x"),
            )
            .select(sql.lit(1).as("one"))
            .whereRef("x.last_key", ">=", "r.low"),
        ),
      ]),
    ),
);

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

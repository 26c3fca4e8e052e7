// The sync's side of run bookkeeping: syncs.status and current_cursor_field, and the change-tracking
// rows of sync_states. Split from run-store.ts (which re-exports all of it) so that each file keeps
// one job; status changes still go through the transition table (transitions.ts).
import "server-only";
import type { Pool, PoolClient } from "pg";
import { pgPool, prisma } from "@/lib/db/client";
import { sqlBuilder, viaClient } from "@/lib/db/kysely";
import { BinaryCopyInput } from "@/lib/db/pg-wire/binary-copy-in";
import type { Sync } from "@/lib/generated/prisma/client";
import type { SyncRecordAction, SyncStatus } from "@/lib/generated/prisma/enums";
import { writeSkippedStates } from "./skipped-states";
import { outcomeList, type AllAccepted } from "./batch";
import { fingerprintText, fingerprintTextAt, writeStateBlocks, type BlockStatus, type StateFingerprint, type StateFingerprints } from "./state-blocks";
import type { DigestSource } from "./fingerprints";
import { syncStatusAfterRun } from "./transitions";

/** A pool or a client in a transaction. */
export type Db = Pool | PoolClient;

// ---- Sync status and cursor -----------------------------------------------------------------------

/** The sync's status after a general run, through the transition table (a disabled sync stays disabled). */
export async function applySyncOutcome(syncId: number, outcome: "success" | "failed" | "canceled", db: Db = pgPool()): Promise<void> {
  const pool = db;
  const rows = await viaClient(pool, sqlBuilder().selectFrom("syncs").select("status").where("id", "=", syncId));
  if (rows.length === 0) return;
  const to = syncStatusAfterRun(rows[0].status, outcome);
  if (!to || to === rows[0].status) return;
  await pool.query("UPDATE syncs SET status = $2::sync_status, updated_at = now() WHERE id = $1 AND status = $3::sync_status", [
    syncId,
    to,
    rows[0].status,
  ]);
}

/** Disable/enable (already checked against the table): false when the sync left `from` meanwhile. */
export async function setSyncStatus(syncId: number, from: SyncStatus, to: SyncStatus, nextRunAt: Sync["nextRunAt"]): Promise<boolean> {
  const updated = await prisma().sync.updateMany({ where: { id: syncId, status: from }, data: { status: to, nextRunAt } });
  return updated.count > 0;
}

/** The incremental cursor: the next run reads rows after this value. */
export async function saveCursor(syncId: number, value: string): Promise<void> {
  await pgPool().query("UPDATE syncs SET current_cursor_field = $2, updated_at = now() WHERE id = $1", [syncId, value]);
}

// ---- Change tracking (sync_states) ----------------------------------------------------------------

/** A recorded row as change tracking sees it. */
export interface StateChange {
  ok: boolean;
  /** Skipped by the write mode (skipped-states.ts). */
  skipped?: boolean;
  item: DigestSource & { key: string; action: SyncRecordAction };
}

/**
 * Accepted rows store their new fingerprint; failed rows keep the last delivered one ('' when never
 * delivered) with last_status failed, so the next run retries them. Deleted rows lose their state.
 * `fresh`: the sync tracked nothing when this attempt began and keys are unique within a run, so no
 * state can conflict: the states go in as one block (state-blocks.ts). Rows the write mode
 * skipped: skipped-states.ts (`skipsPresent`: insert mode's skips, of keys the destination has).
 */
export async function writeStates(
  client: PoolClient,
  syncId: number,
  runId: number,
  changes: readonly StateChange[] | AllAccepted,
  fresh: boolean,
  skipsPresent = false,
): Promise<void> {
  if ("accepted" in changes) {
    const { accepted } = changes;
    // All delivered, of keys new to the sync: blocks straight from the columns, no object a key.
    if (fresh) return writeNewStates(client, syncId, runId, accepted.keys, accepted.digests, new Array<BlockStatus>(accepted.length).fill("success"));
    return writeStates(client, syncId, runId, outcomeList(changes), fresh, skipsPresent);
  }
  const keys: string[] = [];
  const fps: StateFingerprint[] = [];
  const statuses: BlockStatus[] = [];
  const deleted: string[] = [];
  const skipped: { keys: string[]; fps: string[] } = { keys: [], fps: [] };
  for (const c of changes) {
    if (c.ok && c.item.action === "destination_delete") {
      deleted.push(c.item.key);
      continue;
    }
    // Skipped by the write mode (not ok); a skip as already delivered (ok) is tracked as delivered.
    if (c.skipped && !c.ok && !fresh) {
      skipped.keys.push(c.item.key);
      skipped.fps.push(c.item.fingerprint);
      continue;
    }
    keys.push(c.item.key);
    fps.push(c.ok || c.skipped ? c.item : "");
    statuses.push(c.ok ? "success" : c.skipped ? "skipped" : "failed");
  }
  await writeSkippedStates(client, syncId, runId, skipped.keys, skipped.fps, skipsPresent);
  if (keys.length > 0 && fresh) await writeNewStates(client, syncId, runId, keys, fps, statuses);
  else if (keys.length > 0) {
    // A failed row keeps the fingerprint last delivered: its row's, else its block entry's (none
    // when a row says '-').
    await client.query(
      `INSERT INTO sync_states (sync_id, primary_key, fingerprint, last_status, last_run_id)
       SELECT $1, x.k, CASE WHEN x.s = 'failed' THEN coalesce(b.fingerprint, '') ELSE x.f END, x.s::sync_record_status, $2
         FROM unnest($3::text[], $4::text[], $5::text[]) AS x(k, f, s)
         LEFT JOIN ds_block_states($1, ARRAY(SELECT y.k FROM unnest($3::text[], $5::text[]) AS y(k, s) WHERE y.s = 'failed')) b ON b.primary_key = x.k
       ON CONFLICT (sync_id, primary_key) DO UPDATE SET
         fingerprint = CASE WHEN EXCLUDED.last_status = 'success' THEN EXCLUDED.fingerprint
                            WHEN sync_states.fingerprint = '-' THEN '' ELSE sync_states.fingerprint END,
         last_status = EXCLUDED.last_status, last_run_id = EXCLUDED.last_run_id`,
      [syncId, runId, keys, fps.map(fingerprintText), statuses],
    );
  }
  if (deleted.length > 0) await forgetStates(client, syncId, deleted);
}

/** A fresh run's states, as blocks (state-blocks.ts); the keys it leaves, as rows. */
async function writeNewStates(
  client: PoolClient,
  syncId: number,
  runId: number,
  keys: readonly string[],
  fps: StateFingerprints,
  statuses: readonly BlockStatus[],
): Promise<void> {
  const left = await writeStateBlocks(client, syncId, runId, keys, fps, statuses);
  if (left.length === 0) return;
  const input = new BinaryCopyInput();
  for (const i of left) input.row(5).int4(syncId).text(keys[i]).text(fingerprintTextAt(fps, i)).text(statuses[i]).int4(runId);
  await input.copy(client, "COPY sync_states (sync_id, primary_key, fingerprint, last_status, last_run_id) FROM STDIN");
}

/**
 * Rows no longer tracked: deleted in the destination, or gone from the source before ever being
 * delivered. A key with a block entry keeps a row saying "no state" ('-'); the others lose theirs.
 */
export async function forgetStates(db: Db, syncId: number, keys: string[]): Promise<void> {
  await db.query(
    `INSERT INTO sync_states (sync_id, primary_key, fingerprint, last_status, last_run_id)
     SELECT $1, b.primary_key, '-', 'failed', 0 FROM ds_block_states($1, $2::text[]) b
     ON CONFLICT (sync_id, primary_key) DO UPDATE SET fingerprint = '-', last_status = 'failed', last_run_id = 0`,
    [syncId, keys],
  );
  await db.query("DELETE FROM sync_states WHERE sync_id = $1 AND primary_key = ANY($2::text[]) AND fingerprint <> '-'", [syncId, keys]);
}

/**
 * Unchanged rows whose state still held the engine's own fingerprint (md5 of the seed and the row's
 * JSON, what every sync stored before its source fingerprinted rows itself) take the source's
 * fingerprint without being sent, so a sync does not re-send every row once when its source starts
 * fingerprinting. Idempotent, so it needs no transaction with the counters.
 */
export async function rebaselineStates(syncId: number, keys: string[], fingerprints: string[]): Promise<void> {
  const pool = pgPool();
  await pool.query(
    `UPDATE sync_states s SET fingerprint = x.f
     FROM ROWS FROM (json_array_elements_text($2::json), json_array_elements_text($3::json)) AS x(k, f)
     WHERE s.sync_id = $1 AND s.primary_key = x.k AND s.fingerprint <> '-'`,
    [syncId, JSON.stringify(keys), JSON.stringify(fingerprints)],
  );
  // A key known only from a block gets a row with the new fingerprint.
  await pool.query(
    `INSERT INTO sync_states (sync_id, primary_key, fingerprint, last_status, last_run_id)
     SELECT $1, b.primary_key, x.f, b.last_status, b.last_run_id
       FROM ROWS FROM (json_array_elements_text($2::json), json_array_elements_text($3::json)) AS x(k, f)
       JOIN ds_block_states($1, ARRAY(SELECT json_array_elements_text($2::json))) b ON b.primary_key = x.k
     ON CONFLICT (sync_id, primary_key) DO NOTHING`,
    [syncId, JSON.stringify(keys), JSON.stringify(fingerprints)],
  );
}

// Change tracking of records the write mode skipped (docs/write-modes.md, "What a skip means for the
// next run"). A skipped row stores its fingerprint with last_status 'skipped': the next run leaves it
// alone while the row is unchanged, looks again when it changes, and never counts it as delivered
// (delete detection forgets it instead of deleting it; HTTP presence does not see it). One exception:
// an insert-mode skip of a key this sync had delivered itself keeps it delivered (last_status success,
// the new fingerprint), so delete detection still removes the row the sync created.
import "server-only";
import type { PoolClient } from "pg";

export async function writeSkippedStates(
  client: PoolClient,
  syncId: number,
  runId: number,
  keys: string[],
  fingerprints: string[],
  /** The skips mean "the key is in the destination" (insert mode). */
  present: boolean,
): Promise<void> {
  if (keys.length === 0) return;
  // The state before (a row's, else a block entry's) decides an insert-mode skip: see above.
  await client.query(
    `INSERT INTO sync_states (sync_id, primary_key, fingerprint, last_status, last_run_id)
     SELECT $1, x.k, x.f,
            CASE WHEN $5::boolean AND b.fingerprint <> '' AND b.last_status <> 'skipped'
                 THEN 'success'::sync_record_status ELSE 'skipped'::sync_record_status END, $2
       FROM unnest($3::text[], $4::text[]) AS x(k, f)
       LEFT JOIN ds_block_states($1, CASE WHEN $5::boolean THEN $3::text[] ELSE '{}'::text[] END) b ON b.primary_key = x.k
     ON CONFLICT (sync_id, primary_key) DO UPDATE SET
       fingerprint = EXCLUDED.fingerprint,
       last_status = CASE WHEN $5::boolean AND sync_states.fingerprint NOT IN ('', '-') AND sync_states.last_status <> 'skipped'
                          THEN 'success'::sync_record_status ELSE 'skipped'::sync_record_status END,
       last_run_id = EXCLUDED.last_run_id`,
    [syncId, runId, keys, fingerprints, present],
  );
}

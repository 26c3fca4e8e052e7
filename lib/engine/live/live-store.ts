// A live sync's bookkeeping in the application database: the source position (LSN) whose changes are
// recorded, written in the same transaction as a micro-batch's records and states (record-batch.ts),
// so a worker that dies after the commit skips those changes when the stream replays them.
import "server-only";
import type { Pool, PoolClient } from "pg";

type Queryable = Pick<PoolClient, "query"> | Pool;

export async function saveLiveLsn(client: Queryable, syncId: number, lsn: string | null): Promise<void> {
  await client.query("UPDATE syncs SET live_lsn = $2 WHERE id = $1", [syncId, lsn]);
}

export async function liveLsnOf(client: Queryable, syncId: number): Promise<string | null> {
  const { rows } = await client.query<{ live_lsn: string | null }>("SELECT live_lsn FROM syncs WHERE id = $1", [syncId]);
  return rows[0]?.live_lsn ?? null;
}

/** The states of keys a micro-batch changed that the model no longer has: delivered ones become deletes. */
export async function trackedStates(
  pool: Pool,
  syncId: number,
  keys: string[],
): Promise<{ key: string; fingerprint: string; delivered: boolean }[]> {
  if (keys.length === 0) return [];
  const { rows } = await pool.query<{ primary_key: string; fingerprint: string; last_status: string }>(
    // Rows and state blocks alike (lib/engine/state-blocks.ts).
    "SELECT primary_key, fingerprint, last_status::text FROM ds_states_of($1, $2::text[])",
    [syncId, keys],
  );
  // As delete detection judges them: never delivered (or skipped by the write mode) means nothing to delete.
  return rows.map((r) => ({ key: r.primary_key, fingerprint: r.fingerprint, delivered: r.fingerprint !== "" && r.last_status !== "skipped" }));
}

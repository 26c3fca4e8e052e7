// Advisory-lock keys. A worker holds its run's lock on a dedicated connection for the whole run;
// PostgreSQL drops it the moment that connection dies, which is how a crashed worker is detected.
import type { PoolClient } from "pg";

/** 'SYNC' and 'TEST' as int4 namespaces for pg_advisory_lock(int4, int4). */
const SYNC_NAMESPACE = 0x53594e43;
const TEST_NAMESPACE = 0x54455354;
/** Scheduler leadership and record pruning: one process at a time. */
export const SCHEDULER_LOCK: [number, number] = [0x53434844, 1];

/** General runs lock the sync (never two at once); test runs only lock themselves. */
export function runLockKey(run: { id: number; syncId: number; syncRunType: string }): [number, number] {
  return run.syncRunType === "test" ? [TEST_NAMESPACE, run.id] : [SYNC_NAMESPACE, run.syncId];
}

export async function tryLock(client: PoolClient, key: [number, number]): Promise<boolean> {
  const { rows } = await client.query<{ ok: boolean }>("SELECT pg_try_advisory_lock($1, $2) AS ok", key);
  return rows[0].ok;
}

export async function unlock(client: PoolClient, key: [number, number]): Promise<void> {
  await client.query("SELECT pg_advisory_unlock($1, $2)", key);
}

/** True when nobody holds the key (checked inside the caller's transaction, released at its end). */
export async function isFree(client: PoolClient, key: [number, number]): Promise<boolean> {
  const { rows } = await client.query<{ ok: boolean }>("SELECT pg_try_advisory_xact_lock($1, $2) AS ok", key);
  return rows[0].ok;
}

// Every advisory-lock key of the engine. A worker holds its run's lock on a dedicated connection for
// the whole run; PostgreSQL drops it the moment that connection dies, which is how a crashed worker
// is detected. The transaction-scoped ones are released at the end of the caller's transaction.
import "server-only";
import { db, viaClient } from "@/lib/db/kysely";
import type { PoolClient } from "pg";

type LockKey = [number, number];

/** 'SYNC' and 'TEST' as int4 namespaces for pg_advisory_lock(int4, int4). */
const SYNC_NAMESPACE = 0x53594e43;
const TEST_NAMESPACE = 0x54455354;
/** 'TRIG': serialises triggers of one sync (scheduler, API, several web processes) so the active-run check holds. */
const TRIGGER_NAMESPACE = 0x54524947;
/** 'SHAR': admits one run of a workspace at a time against its share (WORKSPACE_MAX_ACTIVE_RUNS). */
const SHARE_NAMESPACE = 0x53484152;
/** 'SBLK': a sync's state blocks, checked against each other as one batch's are written (state-blocks.ts). */
const STATE_BLOCKS_NAMESPACE = 0x53424c4b;
/** 'QDDL': creating pg-boss queues (DDL on its job table), one process at a time. */
export const QUEUE_DDL_LOCK: LockKey = [0x5144444c, 1];
/** Scheduler leadership and record pruning: one process at a time. */
export const SCHEDULER_LOCK: LockKey = [0x53434844, 1];

/** General runs lock the sync (never two at once); test runs only lock themselves. */
export function runLockKey(run: { id: number; syncId: number; syncRunType: string }): LockKey {
  return run.syncRunType === "test" ? [TEST_NAMESPACE, run.id] : [SYNC_NAMESPACE, run.syncId];
}

export function stateBlocksLockKey(syncId: number): LockKey {
  return [STATE_BLOCKS_NAMESPACE, syncId];
}

export function triggerLockKey(syncId: number): LockKey {
  return [TRIGGER_NAMESPACE, syncId];
}

export function workspaceShareLockKey(workspaceId: number): LockKey {
  return [SHARE_NAMESPACE, workspaceId];
}

/** One of PostgreSQL's try-lock functions on the key: true when it took the lock. */
async function tryAdvisory(client: PoolClient, fn: "pg_try_advisory_lock" | "pg_try_advisory_xact_lock", [space, id]: LockKey): Promise<boolean> {
  const [row] = await viaClient(client, db().selectNoFrom((eb) => eb.fn<boolean>(fn, [eb.val(space), eb.val(id)]).as("ok")));
  return row.ok;
}

export async function tryLock(client: PoolClient, key: LockKey): Promise<boolean> {
  return tryAdvisory(client, "pg_try_advisory_lock", key);
}

export async function unlock(client: PoolClient, key: LockKey): Promise<void> {
  await client.query("SELECT pg_advisory_unlock($1, $2)", key);
}

/** Waits for the key until the end of the caller's transaction. */
export async function lockForTransaction(client: PoolClient, key: LockKey): Promise<void> {
  await client.query("SELECT pg_advisory_xact_lock($1, $2)", key);
}

/**
 * Takes the key until the end of the caller's transaction when nobody holds it: true then. Also the
 * check that nobody holds it (a run's lock is free when its worker died).
 */
export async function tryLockForTransaction(client: PoolClient, key: LockKey): Promise<boolean> {
  return tryAdvisory(client, "pg_try_advisory_xact_lock", key);
}

/** True when nobody holds the key (checked inside the caller's transaction, released at its end). */
export const isFree = tryLockForTransaction;

// A live sync's bookkeeping in the application database: the source position (LSN) whose changes are
// recorded, written in the same transaction as a micro-batch's records and states (record-batch.ts),
// so a worker that dies after the commit skips those changes when the stream replays them.
import "server-only";
import type { Pool, PoolClient } from "pg";
import { statesOf } from "@/lib/db/declared-relations";
import { sqlBuilder, viaClient } from "@/lib/db/kysely";

type Queryable = Pick<PoolClient, "query"> | Pool;

export async function saveLiveLsn(client: Queryable, syncId: number, lsn: string | null): Promise<void> {
  await client.query("UPDATE syncs SET live_lsn = $2 WHERE id = $1", [syncId, lsn]);
}

export async function liveLsnOf(client: Pool | PoolClient, syncId: number): Promise<string | null> {
  const rows = await viaClient(client, sqlBuilder().selectFrom("syncs").select("live_lsn").where("id", "=", syncId));
  return rows[0]?.live_lsn ?? null;
}

/** The states of keys a micro-batch changed that the model no longer has: delivered ones become deletes. */
export async function trackedStates(
  pool: Pool,
  syncId: number,
  keys: string[],
): Promise<{ key: string; fingerprint: string; delivered: boolean }[]> {
  if (keys.length === 0) return [];
  // Rows and state blocks alike (lib/engine/state-blocks.ts).
  const rows = await viaClient(pool, sqlBuilder().selectFrom(statesOf(syncId, keys)).select(["s.primary_key", "s.fingerprint", "s.last_status"]));
  // As delete detection judges them: never delivered (or skipped by the write mode) means nothing to delete.
  return rows.map((r) => ({ key: r.primary_key, fingerprint: r.fingerprint, delivered: r.fingerprint !== "" && r.last_status !== "skipped" }));
}

/**
 * A rolling run starts streaming: the progress row now counts its changes (docs/live-syncs.md).
 * `caughtUpAt`, when given, is the time before which every change is recorded (the backfill's slot).
 */
export async function startProgress(client: Queryable, syncId: number, runId: number, caughtUpAt: Date | null): Promise<void> {
  await client.query(
    `INSERT INTO live_progress (sync_id, run_id, streaming_since, changes, caught_up_at, updated_at) VALUES ($1, $2, now(), 0, $3, now())
     ON CONFLICT (sync_id) DO UPDATE SET run_id = $2, streaming_since = now(), changes = 0,
       caught_up_at = COALESCE($3, live_progress.caught_up_at), updated_at = now()`,
    [syncId, runId, caughtUpAt],
  );
}

/** A micro-batch recorded (in its transaction): its changes counted, and every change committed up to its last transaction's commit is in. */
export async function recordProgress(client: Queryable, syncId: number, changes: number, committedAt: Date | null): Promise<void> {
  await client.query(
    "UPDATE live_progress SET changes = changes + $2, caught_up_at = GREATEST(caught_up_at, $3), updated_at = now() WHERE sync_id = $1",
    [syncId, changes, committedAt],
  );
}

/** The stream waited and nothing came: every change committed before `at` is recorded. */
export async function caughtUp(client: Queryable, syncId: number, at: Date): Promise<void> {
  await client.query("UPDATE live_progress SET caught_up_at = GREATEST(caught_up_at, $2), updated_at = now() WHERE sync_id = $1", [syncId, at]);
}

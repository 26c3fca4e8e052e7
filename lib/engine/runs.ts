// What the REST layer calls to start, cancel and test runs, and to change a sync's status. All take
// workspace-scoped ids ("not yours" is the same 404 as "does not exist") and throw typed errors.
import type { PoolClient } from "pg";
import { pgPool, prisma } from "@/lib/db/client";
import { FailedDependency, NotFound } from "@/lib/errors";
import type { Sync, SyncRun } from "@/lib/generated/prisma/client";
import type { SyncStatus } from "@/lib/generated/prisma/enums";
import { applySyncOutcome, CANCELED_ERROR, DISABLED_ERROR, setRunStatus } from "./pipeline";
import { cancelRunJobs, enqueueRun } from "./queue";
import { computeNextRunAt } from "@/lib/sync-config/schedule";
import { ACTIVE_RUN_STATUSES, assertSyncTransition } from "./transitions";

/** Serialises triggers of one sync (scheduler, API, several web processes) so the active-run check holds. */
const TRIGGER_NAMESPACE = 0x54524947;

async function findSync(workspaceId: number, syncId: number): Promise<Sync> {
  const sync = await prisma().sync.findFirst({ where: { id: syncId, workspaceId, deletedAt: null } });
  if (!sync) throw new NotFound(`Sync ${syncId} was not found.`);
  return sync;
}

async function inTransaction<T>(fn: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pgPool().connect();
  try {
    await client.query("BEGIN");
    const result = await fn(client);
    await client.query("COMMIT");
    return result;
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/**
 * Creates a queued general run unless one is active. Returns null when one is active. The caller
 * holds a transaction on `client`; the trigger lock is released at its end.
 */
export async function createGeneralRun(client: PoolClient, sync: { id: number; workspaceId: number }): Promise<number | null> {
  await client.query("SELECT pg_advisory_xact_lock($1, $2)", [TRIGGER_NAMESPACE, sync.id]);
  const active = await client.query(
    "SELECT id FROM sync_runs WHERE sync_id = $1 AND sync_run_type = 'general' AND status = ANY($2::sync_run_status[]) LIMIT 1",
    [sync.id, ACTIVE_RUN_STATUSES],
  );
  if ((active.rowCount ?? 0) > 0) return null;
  const { rows } = await client.query<{ id: number }>(
    `INSERT INTO sync_runs (workspace_id, sync_id, status, sync_run_type, timings, created_at, updated_at)
     VALUES ($1, $2, 'queued', 'general', '{}', now(), now()) RETURNING id`,
    [sync.workspaceId, sync.id],
  );
  return rows[0].id;
}

/** Sends a freshly created run to the queue; if that fails the run is failed rather than left stranded. */
async function enqueueOrFail(run: SyncRun): Promise<SyncRun> {
  try {
    await enqueueRun(run);
  } catch (err) {
    await setRunStatus(pgPool(), run.id, "failed", { error: `The run could not be queued: ${(err as Error).message}`, finished: true });
    throw err;
  }
  return run;
}

/** Manual trigger. 424 when the sync is disabled or a run is already active. */
export async function triggerSync(workspaceId: number, syncId: number): Promise<SyncRun> {
  const sync = await findSync(workspaceId, syncId);
  if (sync.status === "disabled") throw new FailedDependency(`Sync ${syncId} is disabled; enable it before running it.`);
  const runId = await inTransaction(async (client) => {
    // Re-read under the trigger lock: a disable racing with this trigger wins.
    const { rows } = await client.query<{ status: SyncStatus }>("SELECT status FROM syncs WHERE id = $1 FOR SHARE", [syncId]);
    if (rows[0]?.status === "disabled") throw new FailedDependency(`Sync ${syncId} is disabled; enable it before running it.`);
    return createGeneralRun(client, sync);
  });
  if (runId === null) throw new FailedDependency(`Sync ${syncId} is already running; wait for the run to finish or cancel it.`);
  return enqueueOrFail(await prisma().syncRun.findUniqueOrThrow({ where: { id: runId } }));
}

/**
 * Cancels the sync's active general run: it ends failed with the reason in `error` (behaviour.md 7: a
 * run that could not finish is failed) and the sync becomes aborted. 424 when there is none.
 */
export async function cancelSync(workspaceId: number, syncId: number): Promise<SyncRun> {
  await findSync(workspaceId, syncId);
  const active = await prisma().syncRun.findFirst({
    where: { syncId, syncRunType: "general", status: { in: [...ACTIVE_RUN_STATUSES] } },
    orderBy: { id: "desc" },
  });
  if (!active || !(await setRunStatus(pgPool(), active.id, "failed", { error: CANCELED_ERROR, finished: true }))) {
    throw new FailedDependency(`Sync ${syncId} has no active run to cancel.`);
  }
  // A worker running it notices within a second and stops; a run still waiting never starts.
  await cancelRunJobs(active.id).catch(() => undefined);
  await applySyncOutcome(syncId, "canceled");
  return prisma().syncRun.findUniqueOrThrow({ where: { id: active.id } });
}

/** A test run: one random row of the model, sent on its own, change-tracking untouched. 424 when disabled. */
export async function triggerTestRun(workspaceId: number, syncId: number): Promise<SyncRun> {
  const sync = await findSync(workspaceId, syncId);
  if (sync.status === "disabled") throw new FailedDependency(`Sync ${syncId} is disabled; enable it before testing it.`);
  const run = await prisma().syncRun.create({
    data: { workspaceId, syncId, status: "queued", syncRunType: "test", timings: {} },
  });
  return enqueueOrFail(run);
}

/**
 * Changes a sync's status through the transition table (409 Conflict when not allowed). Disabling
 * cancels its waiting or running general run and clears next_run_at; enabling makes it pending and
 * schedules the next run.
 */
export async function transitionSyncStatus(workspaceId: number, syncId: number, to: SyncStatus): Promise<Sync> {
  const sync = await findSync(workspaceId, syncId);
  assertSyncTransition(sync.status, to);
  if (sync.status === to) return sync;
  const nextRunAt = to === "disabled" ? null : computeNextRunAt({ ...sync, status: to });
  const updated = await prisma().sync.updateMany({ where: { id: syncId, status: sync.status }, data: { status: to, nextRunAt } });
  if (updated.count === 0) return transitionSyncStatus(workspaceId, syncId, to);
  if (to === "disabled") {
    const active = await prisma().syncRun.findMany({
      where: { syncId, syncRunType: "general", status: { in: [...ACTIVE_RUN_STATUSES] } },
      select: { id: true },
    });
    for (const run of active) {
      await setRunStatus(pgPool(), run.id, "failed", { error: DISABLED_ERROR, finished: true });
      await cancelRunJobs(run.id).catch(() => undefined);
    }
  }
  return prisma().sync.findUniqueOrThrow({ where: { id: syncId } });
}

// Which run event a status change publishes, and its payload read inside the change's transaction
// (events.ts). run-store.ts calls publishRunEvent for every status change; record-batch.ts for progress.
import "server-only";
import type { PoolClient } from "pg";
import { sqlBuilder, viaClient } from "@/lib/db/kysely";
import type { SyncRunStatus } from "@/lib/generated/prisma/enums";
import { runOutcome } from "@/lib/sync-rules/run-outcome";
import { hasSubscribers, publish, type RunEvent, type RunEventName } from "./events";

/**
 * The event a run entering `status` publishes, if any: its start (claimRun publishes only a first
 * one), a hold for approval, its end (a stopped run, ended failed or canceled, is `run.canceled`).
 * Other statuses (querying, paused, queued again…) publish nothing.
 */
export function runEventName(status: SyncRunStatus, outcome: RunEvent["outcome"]): RunEventName | undefined {
  if (status === "started") return "run.started";
  if (status === "needs_approval") return "run.needs_approval";
  if (status === "success") return "run.succeeded";
  if (status === "failed" || status === "canceled") return outcome === "canceled" ? "run.canceled" : "run.failed";
  return undefined;
}

/** The events a change to each status may publish; a change to any other opens no transaction for one. */
const EVENTS_OF: Record<string, RunEventName[]> = {
  started: ["run.started"],
  needs_approval: ["run.needs_approval"],
  success: ["run.succeeded"],
  failed: ["run.failed", "run.canceled"],
  canceled: ["run.failed", "run.canceled"],
};

/** Whether a change to `status` has anyone to tell (so the caller may skip its transaction). */
export function anyoneListens(status: SyncRunStatus): boolean {
  return (EVENTS_OF[status] ?? []).some(hasSubscribers);
}

/** The run as `client`'s transaction sees it (its change not committed yet). */
async function readRunEvent(client: PoolClient, runId: number): Promise<RunEvent | undefined> {
  const [r] = await viaClient(
    client,
    sqlBuilder()
      .selectFrom("sync_runs")
      .select([
        "id", "sync_id", "workspace_id", "sync_run_type", "status", "error", "canceled_by", "started_at", "finished_at", "total_query_rows",
        "total_rows", "skipped_rows", "successful_rows", "failed_rows", "duplicate_rows", "processed_rows",
      ])
      .where("id", "=", runId),
  );
  if (!r) return undefined;
  return {
    runId: r.id,
    syncId: r.sync_id,
    workspaceId: r.workspace_id,
    runType: r.sync_run_type,
    status: r.status,
    outcome: runOutcome(r),
    error: r.error,
    canceledBy: r.canceled_by,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
    counts: {
      totalQueryRows: r.total_query_rows,
      totalRows: r.total_rows,
      skippedRows: r.skipped_rows,
      successfulRows: r.successful_rows,
      failedRows: r.failed_rows,
      duplicateRows: r.duplicate_rows,
      processedRows: r.processed_rows,
    },
  };
}

/** Publishes the event of the run's new status (if any) inside the transaction on `client`. */
export async function publishRunEvent(client: PoolClient, runId: number, status: SyncRunStatus): Promise<void> {
  if (!anyoneListens(status)) return;
  const event = await readRunEvent(client, runId);
  if (!event) return;
  const name = runEventName(status, event.outcome);
  if (name) await publish(client, name, event);
}

/** Publishes `run.progress` (after a group was recorded) inside the transaction on `client`. */
export async function publishRunProgress(client: PoolClient, runId: number): Promise<void> {
  if (!hasSubscribers("run.progress")) return;
  const event = await readRunEvent(client, runId);
  if (event) await publish(client, "run.progress", event);
}

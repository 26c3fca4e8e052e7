// Sync run resources; duration is seconds (float) between start and finish.
import type { ActorAccess } from "@/lib/auth/actors";
import type { SyncRun } from "@/lib/generated/prisma/client";
import { parseWriteTarget } from "@/lib/engine";
import { runOutcome } from "@/lib/sync-rules/run-outcome";
import { storedRunTimingsSchema } from "@/lib/sync-rules/run-timings";
import { parseStored } from "@/lib/validation/stored";
import { storedRunPlan } from "./plans";
import { iso, resource } from "./resource";
import { runProgress } from "./run-progress";
import type { SyncRunAttributes, SyncRunResource } from "./sync-runs.schema";

const duration = (r: SyncRun): number | null =>
  r.startedAt && r.finishedAt ? Math.max(0, r.finishedAt.getTime() - r.startedAt.getTime()) / 1000 : null;

/** `access`: whether the caller may read who canceled the run (lib/auth/actors.ts). */
export function serializeSyncRun(r: SyncRun, access: ActorAccess): SyncRunResource {
  const timings = parseStored(storedRunTimingsSchema, r.timings, `timings of run ${r.id}`);
  return resource(r.id, "sync_runs", {
    sync_id: r.syncId,
    status: r.status,
    sync_run_type: r.syncRunType,
    started_at: iso(r.startedAt),
    finished_at: iso(r.finishedAt),
    duration: duration(r),
    total_query_rows: r.totalQueryRows,
    total_rows: r.totalRows,
    skipped_rows: r.skippedRows,
    successful_rows: r.successfulRows,
    failed_rows: r.failedRows,
    write_mode: parseWriteTarget(r.writeTarget)?.mode ?? null,
    duplicate_rows: r.duplicateRows,
    processed_rows: r.processedRows,
    timings,
    error: r.error,
    outcome: runOutcome({ status: r.status, failed_rows: r.failedRows, error: r.error, canceled_by: r.canceledBy }),
    canceled_by: access.actors ? r.canceledBy : null,
    plan: storedRunPlan(r.plan),
    // An approved run is approved whoever reads it; who approved it follows the canceled_by rule.
    approved_by: r.approvedBy === null ? null : access.actors ? r.approvedBy : null,
    approved: r.approvedBy !== null,
    held: (storedRunPlan(r.plan)?.exceeded.length ?? 0) > 0,
    progress: runProgress({ ...r, timings }, new Date()),
    // A paused run waits for its destination's rate limit (or Retry-After) until then, holding no worker.
    waiting_until: r.status === "paused" ? iso(r.waitingUntil) : null,
    created_at: iso(r.createdAt),
    updated_at: iso(r.updatedAt),
  } satisfies SyncRunAttributes);
}

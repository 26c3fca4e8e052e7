// Run-after lists and sequence runs, field by field.
import type { ActorAccess } from "@/lib/auth/actors";
import type { RunAfterView } from "@/lib/services/syncs/run-after";
import type { SequenceRunView } from "@/lib/services/syncs/sequence-runs";
import { iso, resource } from "./resource";
import type { RunAfterResource, SequenceRunResource } from "./sequences.schema";

export const serializeRunAfter = (v: RunAfterView): RunAfterResource =>
  resource(v.syncId, "run_after", { sync_id: v.syncId, sync_ids: v.upstreamIds, dependent_sync_ids: v.dependentIds });

/** `access`: whether the caller may read who started it (lib/auth/actors.ts). */
export const serializeSequenceRun = (v: SequenceRunView, access: ActorAccess): SequenceRunResource =>
  resource(v.sequence.id, "sequence_runs", {
    sync_id: v.sequence.syncId,
    status: v.status,
    triggered_by: access.actors ? v.sequence.triggeredBy : null,
    created_at: iso(v.sequence.createdAt),
    finished_at: iso(v.finishedAt),
    steps: v.steps.map((s) => ({
      sync_id: s.step.syncId,
      sync_name: s.syncName,
      run_after: s.inSequenceUpstreams,
      state: s.progress.state,
      reason: s.progress.reason,
      sync_run_id: s.step.syncRunId,
      run_status: s.run?.status ?? null,
      started_at: iso(s.run?.startedAt),
      finished_at: iso(s.run?.finishedAt),
    })),
  });

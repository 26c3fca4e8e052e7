// POST /api/v1/syncs/{sync_id}/sync_runs/{id}/approve - let a run held by its sync's limits go on.
import { actorAccess } from "@/lib/auth/actors";
import { syncRuns } from "@/lib/contract/sync-runs";
import { route } from "@/lib/http/handler";
import { serializeSyncRun } from "@/lib/serializers/sync-runs";
import { approveSyncRun } from "@/lib/services/syncs/syncs";

export const POST = route(syncRuns.approveSyncRun, async ({ auth, params, body }) => {
  const run = await approveSyncRun(auth, params.sync_id, params.id, body?.planned_at);
  return {
    message: `Sync run ${run.id} approved: it is queued and goes on within the plan you approved (more or other deletes or updates hold it again).`,
    data: serializeSyncRun(run, actorAccess(auth)),
  };
});

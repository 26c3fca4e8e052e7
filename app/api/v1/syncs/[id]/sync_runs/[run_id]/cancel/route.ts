// POST /api/v1/syncs/{sync_id}/sync_runs/{id}/cancel - cancel one run by id.
import { actorAccess } from "@/lib/auth/actors";
import { syncRuns } from "@/lib/contract/sync-runs";
import { route } from "@/lib/http/handler";
import { serializeSyncRun } from "@/lib/serializers/sync-runs";
import { cancelSyncRunById } from "@/lib/services/syncs/syncs";

export const POST = route(syncRuns.cancelSyncRun, async ({ auth, params }) => {
  const run = await cancelSyncRunById(auth, params.sync_id, params.id);
  return { message: `Sync run ${run.id} canceled.`, data: serializeSyncRun(run, actorAccess(auth)) };
});

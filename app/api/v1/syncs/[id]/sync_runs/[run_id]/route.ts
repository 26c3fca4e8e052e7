// GET /api/v1/syncs/{sync_id}/sync_runs/{id}[?wait=N] - one run of a sync; wait long-polls until it settles.
import { actorAccess } from "@/lib/auth/actors";
import { syncRuns } from "@/lib/contract/sync-runs";
import { route } from "@/lib/http/handler";
import { serializeSyncRun } from "@/lib/serializers/sync-runs";
import { waitForSyncRun } from "@/lib/services/syncs/runs";

export const GET = route(syncRuns.getSyncRun, async ({ auth, params, query, req }) => ({
  data: serializeSyncRun(
    await waitForSyncRun({ workspaceId: auth.workspaceId, userId: auth.user.id }, params.sync_id, params.id, query.wait ?? 0, req.signal),
    actorAccess(auth),
  ),
}));

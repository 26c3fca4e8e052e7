// GET /api/v1/sync_runs/{id}[?wait=N] - one run of the workspace by id; wait long-polls until it settles.
import { actorAccess } from "@/lib/auth/actors";
import { syncRuns } from "@/lib/contract/sync-runs";
import { route } from "@/lib/http/handler";
import { serializeSyncRun } from "@/lib/serializers/sync-runs";
import { waitForWorkspaceSyncRun } from "@/lib/services/syncs/runs";

export const GET = route(syncRuns.getWorkspaceSyncRun, async ({ auth, params, query, req }) => ({
  data: serializeSyncRun(await waitForWorkspaceSyncRun({ workspaceId: auth.workspaceId, userId: auth.user.id }, params.id, query.wait ?? 0, req.signal), actorAccess(auth)),
}));

// GET /api/v1/syncs/{sync_id}/sync_runs/{id} - one run of a sync.
import { actorAccess } from "@/lib/auth/actors";
import { syncRuns } from "@/lib/contract/sync-runs";
import { route } from "@/lib/http/handler";
import { serializeSyncRun } from "@/lib/serializers/sync-runs";
import { getSyncRun } from "@/lib/services/sync-runs";

export const GET = route(syncRuns.getSyncRun, async ({ auth, params }) => ({
  data: serializeSyncRun(await getSyncRun(auth.workspaceId, params.sync_id, params.id), actorAccess(auth)),
}));

// GET /api/v1/syncs/{sync_id}/sync_runs/{id} - one run of a sync.
import { route } from "@/lib/http/handler";
import { serializeSyncRun } from "@/lib/serializers/sync-runs";
import { getSyncRun } from "@/lib/services/sync-runs";
import { syncRunParamsSchema } from "@/lib/validation/sync-runs";

export const GET = route({ permission: ["sync_run", "read"], params: syncRunParamsSchema }, async ({ auth, params }) => ({
  data: serializeSyncRun(await getSyncRun(auth.workspaceId, params.sync_id, params.id)),
}));

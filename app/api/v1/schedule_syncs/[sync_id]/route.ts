// DELETE /api/v1/schedule_syncs/{sync_id} - cancel the sync's active run (424 when there is none).
import { actorAccess } from "@/lib/auth/actors";
import { syncs } from "@/lib/contract/syncs";
import { route } from "@/lib/http/handler";
import { serializeSyncRun } from "@/lib/serializers/sync-runs";
import { cancelSyncRun } from "@/lib/services/syncs/syncs";

export const DELETE = route(syncs.cancelSync, async ({ auth, params }) => ({
  message: "Sync cancelled successfully",
  data: serializeSyncRun(await cancelSyncRun(auth, params.sync_id), actorAccess(auth)),
}));

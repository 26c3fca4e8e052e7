// POST /api/v1/schedule_syncs - run a sync now (424 when it is disabled or already running; an
// Idempotency-Key header makes a retried trigger answer the same run).
import { actorAccess } from "@/lib/auth/actors";
import { syncs } from "@/lib/contract/syncs";
import { route } from "@/lib/http/handler";
import { serializeSyncRun } from "@/lib/serializers/sync-runs";
import { triggerSyncRun } from "@/lib/services/syncs/syncs";
import { triggerKeyOf } from "@/lib/services/syncs/trigger-keys";

export const POST = route(syncs.scheduleSync, async ({ req, auth, body }) => ({
  message: "Sync scheduled successfully",
  data: serializeSyncRun(await triggerSyncRun(auth, body.schedule_sync.sync_id, triggerKeyOf(req.headers)), actorAccess(auth)),
}));

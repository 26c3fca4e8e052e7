// POST /api/v1/schedule_syncs - run a sync now (424 when it is disabled or already running).
import { serializeSyncRun } from "@/lib/serializers/sync-runs";
import { route } from "@/lib/http/handler";
import { triggerSyncRun } from "@/lib/services/syncs";
import { scheduleSyncSchema } from "@/lib/validation/syncs";

export const POST = route({ permission: ["sync", "create"], body: scheduleSyncSchema }, async ({ auth, body }) => ({
  message: "Sync scheduled successfully",
  data: serializeSyncRun(await triggerSyncRun(auth, body.schedule_sync.sync_id)),
}));

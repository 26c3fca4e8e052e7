// GET /api/v1/syncs/{sync_id}/sync_runs/{sync_run_id}/sync_records/{id} - one record: source row, payload, request and response.
import { syncRuns } from "@/lib/contract/sync-runs";
import { route } from "@/lib/http/handler";
import { serializeSyncRecordDetail } from "@/lib/serializers/sync-records";
import { getSyncRecord } from "@/lib/services/syncs/record-detail";

export const GET = route(syncRuns.getSyncRecord, async ({ auth, params }) => ({
  data: serializeSyncRecordDetail(await getSyncRecord(auth.workspaceId, params.sync_id, params.sync_run_id, params.id)),
}));

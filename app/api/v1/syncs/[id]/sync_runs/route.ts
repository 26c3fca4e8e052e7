// GET /api/v1/syncs/{sync_id}/sync_runs - runs of a sync, newest first (filter status, sync_run_type).
import { actorAccess } from "@/lib/auth/actors";
import { syncRuns } from "@/lib/contract/sync-runs";
import { route } from "@/lib/http/handler";
import { pageLinks } from "@/lib/http/pagination";
import { serializeSyncRun } from "@/lib/serializers/sync-runs";
import { listSyncRuns } from "@/lib/services/syncs/runs";

export const GET = route(syncRuns.listSyncRuns, async ({ auth, url, params, query: { page, ...filters } }) => {
  const { rows, total } = await listSyncRuns(auth.workspaceId, params.sync_id, filters, page);
  const access = actorAccess(auth);
  return { data: rows.map((r) => serializeSyncRun(r, access)), ...pageLinks(url, page, total) };
});

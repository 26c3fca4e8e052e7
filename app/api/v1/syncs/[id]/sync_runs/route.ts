// GET /api/v1/syncs/{sync_id}/sync_runs - runs of a sync, newest first (filter status, sync_run_type).
import { route } from "@/lib/http/handler";
import { pageLinks, parsePage } from "@/lib/http/pagination";
import { serializeSyncRun } from "@/lib/serializers/sync-runs";
import { listSyncRuns } from "@/lib/services/sync-runs";
import { listSyncRunsQuerySchema, syncRunsParamsSchema } from "@/lib/validation/sync-runs";

export const GET = route(
  { permission: ["sync_run", "read"], params: syncRunsParamsSchema, query: listSyncRunsQuerySchema },
  async ({ auth, url, params, query }) => {
    const page = parsePage(url.searchParams);
    const { rows, total } = await listSyncRuns(auth.workspaceId, params.sync_id, query, page);
    return { data: rows.map(serializeSyncRun), ...pageLinks(url, page, total) };
  },
);

// GET /api/v1/syncs/{sync_id}/sync_runs/{sync_run_id}/sync_records/export - the run's records as CSV, streamed.
import { syncRuns } from "@/lib/contract/sync-runs";
import { route } from "@/lib/http/handler";
import { exportFileName, exportSyncRecords } from "@/lib/services/syncs/records-export";

export const GET = route(syncRuns.exportSyncRecords, async ({ auth, params, query }) => {
  const body = await exportSyncRecords(auth, params.sync_id, params.sync_run_id, query);
  return new Response(body, {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="${exportFileName(params.sync_id, params.sync_run_id, query)}"`,
      "cache-control": "no-store",
    },
  });
});

// GET /api/v1/syncs/{sync_id}/sync_runs/{id}/undelivered - how many of a run's failed records are still undelivered.
import { syncRuns } from "@/lib/contract/sync-runs";
import { route } from "@/lib/http/handler";
import { undeliveredRows } from "@/lib/services/syncs/undelivered-records";

export const GET = route(syncRuns.getSyncRunUndelivered, async ({ auth, params }) => ({
  data: { sync_run_id: params.id, ...(await undeliveredRows(auth.workspaceId, params.sync_id, params.id)) },
}));

// GET /api/v1/syncs/{sync_id}/sync_runs/{sync_run_id}/sync_records - records of one run, oldest first.
import { syncRuns } from "@/lib/contract/sync-runs";
import { route } from "@/lib/http/handler";
import { pageLinks } from "@/lib/http/pagination";
import { serializeSyncRecord } from "@/lib/serializers/sync-records";
import { listSyncRecords } from "@/lib/services/syncs/records";

// Remembered while the database is unchanged (lib/http/remembered.ts): the console polls a running run's page.
export const GET = route(
  syncRuns.listSyncRecords,
  async ({ auth, url, params, query: { page, ...filters } }) => {
    const { rows, total, writeTarget } = await listSyncRecords(auth.workspaceId, params.sync_id, params.sync_run_id, filters, page);
    return { data: rows.map((r) => serializeSyncRecord(r, writeTarget)), ...pageLinks(url, page, total) };
  },
  { remember: true },
);

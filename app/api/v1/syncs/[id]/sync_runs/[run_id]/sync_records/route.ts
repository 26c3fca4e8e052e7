// GET /api/v1/syncs/{sync_id}/sync_runs/{sync_run_id}/sync_records - records of one run, oldest first.
import { route } from "@/lib/http/handler";
import { pageLinks, parsePage } from "@/lib/http/pagination";
import { serializeSyncRecord } from "@/lib/serializers/sync-records";
import { listSyncRecords } from "@/lib/services/sync-records";
import { listSyncRecordsQuerySchema, syncRecordsParamsSchema } from "@/lib/validation/sync-records";

export const GET = route(
  { permission: ["sync_record", "read"], params: syncRecordsParamsSchema, query: listSyncRecordsQuerySchema },
  async ({ auth, url, params, query }) => {
    const page = parsePage(url.searchParams);
    const { rows, total, writeTarget } = await listSyncRecords(auth.workspaceId, params.sync_id, params.sync_run_id, query, page);
    return { data: rows.map((r) => serializeSyncRecord(r, writeTarget)), ...pageLinks(url, page, total) };
  },
);

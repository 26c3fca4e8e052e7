// Runs of a sync and the records they sent.
import { z } from "zod";
import { listSchema, paginated } from "@/lib/http/pagination";
import { syncRecordSchema } from "@/lib/serializers/sync-records.schema";
import { syncRunSchema } from "@/lib/serializers/sync-runs.schema";
import { listSyncRecordsQuerySchema, syncRecordsParamsSchema } from "@/lib/validation/sync-records";
import { listSyncRunsQuerySchema, syncRunParamsSchema, syncRunsParamsSchema } from "@/lib/validation/sync-runs";
import { operation } from "./operation";

export const syncRuns = {
  listSyncRuns: operation({
    operationId: "listSyncRuns",
    method: "get",
    path: "/api/v1/syncs/{sync_id}/sync_runs",
    tag: "Sync runs",
    summary: "Runs of a sync, newest first",
    permission: ["sync_run", "read"],
    params: syncRunsParamsSchema,
    query: paginated(listSyncRunsQuerySchema),
    status: 200,
    response: listSchema(syncRunSchema),
  }),
  getSyncRun: operation({
    operationId: "getSyncRun",
    method: "get",
    path: "/api/v1/syncs/{sync_id}/sync_runs/{id}",
    tag: "Sync runs",
    summary: "Show a sync run",
    permission: ["sync_run", "read"],
    params: syncRunParamsSchema,
    status: 200,
    response: z.strictObject({ data: syncRunSchema }),
  }),
  listSyncRecords: operation({
    operationId: "listSyncRecords",
    method: "get",
    path: "/api/v1/syncs/{sync_id}/sync_runs/{sync_run_id}/sync_records",
    tag: "Sync runs",
    summary: "Records a run sent, oldest first",
    permission: ["sync_record", "read"],
    params: syncRecordsParamsSchema,
    query: paginated(listSyncRecordsQuerySchema),
    status: 200,
    response: listSchema(syncRecordSchema),
  }),
};

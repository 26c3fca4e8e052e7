// Runs of a sync and the records they sent.
import { z } from "zod";
import { listSchema, paginated } from "@/lib/http/pagination";
import { syncRecordDetailSchema, syncRecordSchema } from "@/lib/serializers/sync-records.schema";
import { syncRunPlanSchema } from "@/lib/serializers/plans.schema";
import { syncRunSchema } from "@/lib/serializers/sync-runs.schema";
import { undeliveredRowsSchema } from "@/lib/serializers/undelivered.schema";
import {
  exportSyncRecordsQuerySchema,
  listSyncRecordsQuerySchema,
  syncRecordParamsSchema,
  syncRecordsParamsSchema,
} from "@/lib/validation/sync-records";
import {
  approveSyncRunSchema,
  getSyncRunQuerySchema,
  listSyncRunsQuerySchema,
  syncRunParamsSchema,
  syncRunsParamsSchema,
  workspaceSyncRunParamsSchema,
} from "@/lib/validation/sync-runs";
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
    query: getSyncRunQuerySchema,
    status: 200,
    response: z.strictObject({ data: syncRunSchema }),
    errors: [429],
    notes:
      "With wait=N (0-60) the request long-polls until the run ends (success, failed, canceled, needs_approval) or N seconds pass; the status tells which. 429 (Retry-After) when the workspace already holds LONG_POLL_MAX_PER_WORKSPACE waits, or the caller LONG_POLL_MAX_PER_USER across their workspaces, in this process.",
  }),
  getWorkspaceSyncRun: operation({
    operationId: "getWorkspaceSyncRun",
    method: "get",
    path: "/api/v1/sync_runs/{id}",
    tag: "Sync runs",
    summary: "Show a sync run by its id alone",
    permission: ["sync_run", "read"],
    params: workspaceSyncRunParamsSchema,
    query: getSyncRunQuerySchema,
    status: 200,
    response: z.strictObject({ data: syncRunSchema }),
    errors: [429],
    notes:
      "The same body and wait=N long-poll as GET /api/v1/syncs/{sync_id}/sync_runs/{id}, for a caller that kept only the run id. Another workspace's run is a 404. 429 (Retry-After) when the workspace already holds LONG_POLL_MAX_PER_WORKSPACE waits, or the caller LONG_POLL_MAX_PER_USER across their workspaces, in this process.",
  }),
  approveSyncRun: operation({
    operationId: "approveSyncRun",
    method: "post",
    path: "/api/v1/syncs/{sync_id}/sync_runs/{id}/approve",
    tag: "Sync runs",
    summary: "Let a run held by its sync's blast-radius limits go on",
    permission: ["sync", "create"],
    params: syncRunParamsSchema,
    body: approveSyncRunSchema,
    bodyOptional: true,
    status: 200,
    response: z.strictObject({ message: z.string(), data: syncRunSchema }),
    errors: [409],
    notes:
      "The run (status needs_approval) is queued again with approved_by set. The approval binds to the plan it was held with: the run plans again and goes on within it (the same or fewer deletes and updates, of the same rows); if it would delete or update more or other rows, or the model is now empty, it is held again with a sentence saying what changed. Audit-logged. 409 when the run is not waiting for approval, or `planned_at` is not its plan's. Cancel a held run with DELETE /api/v1/schedule_syncs/{sync_id}.",
  }),
  cancelSyncRun: operation({
    operationId: "cancelSyncRun",
    method: "post",
    path: "/api/v1/syncs/{sync_id}/sync_runs/{id}/cancel",
    tag: "Sync runs",
    summary: "Cancel one run by id",
    permission: ["sync", "create"],
    params: syncRunParamsSchema,
    status: 200,
    response: z.strictObject({ message: z.string(), data: syncRunSchema }),
    errors: [409],
    notes: "The run ends failed with canceled_by set, like DELETE /api/v1/schedule_syncs/{sync_id}. Audit-logged. 409 when the run has already ended.",
  }),
  getSyncRunPlan: operation({
    operationId: "getSyncRunPlan",
    method: "get",
    path: "/api/v1/syncs/{sync_id}/sync_runs/{id}/plan",
    tag: "Sync runs",
    summary: "The plan a run kept, with the sample rows it was held with",
    permission: ["sync_record", "read"],
    params: syncRunParamsSchema,
    status: 200,
    response: syncRunPlanSchema,
    notes:
      "What the run planned before its first write (the run resource's plan) and, while it waits for approval, up to 5 sample rows per action with the payloads the mapping makes of them: the keys and rows it would delete or change. Samples are source rows, so the permission is the records' one. 404 when the run kept no plan (its sync's limits were not in force).",
  }),
  getSyncRunUndelivered: operation({
    operationId: "getSyncRunUndelivered",
    method: "get",
    path: "/api/v1/syncs/{sync_id}/sync_runs/{id}/undelivered",
    tag: "Sync runs",
    summary: "How many of a run's failed records are still undelivered",
    permission: ["sync_run", "read"],
    params: syncRunParamsSchema,
    status: 200,
    response: undeliveredRowsSchema,
    notes:
      "A failed record stays undelivered until a later run (POST /api/v1/schedule_syncs re-sends every failed row) delivers it. The console offers \"Retry failed records\" only while undelivered_rows is above 0.",
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
  getSyncRecord: operation({
    operationId: "getSyncRecord",
    method: "get",
    path: "/api/v1/syncs/{sync_id}/sync_runs/{sync_run_id}/sync_records/{id}",
    tag: "Sync runs",
    summary: "One record: source row, mapped payload, request and response",
    permission: ["sync_record", "read"],
    params: syncRecordParamsSchema,
    status: 200,
    response: z.strictObject({ data: syncRecordDetailSchema }),
    notes:
      "payload is what was sent for a failed record, else the source row mapped again with the sync's current mapping (payload_source says which). Request and response never carry the connectors' secrets or credential headers.",
  }),
  exportSyncRecords: operation({
    operationId: "exportSyncRecords",
    method: "get",
    path: "/api/v1/syncs/{sync_id}/sync_runs/{sync_run_id}/sync_records/export",
    tag: "Sync runs",
    summary: "Download a run's records as CSV, with the list's filters",
    permission: ["sync_record", "read"],
    params: syncRecordsParamsSchema,
    query: exportSyncRecordsQuerySchema,
    status: 200,
    produces: {
      mediaType: "text/csv",
      description:
        "Columns record_id, primary_key, status, action, error, created_at, source_row (JSON); streamed. Cells starting with = + - @ are prefixed with ' so spreadsheets show them as text.",
    },
  }),
};

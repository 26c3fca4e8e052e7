// The JSON bodies webhook deliveries carry (docs/webhooks.md): an envelope {id, type, created_at,
// workspace_id, data}; a run event's data is the run's ids, status, outcome and counters, named as
// in the sync run resource (lib/serializers/sync-runs.ts).
import { randomUUID } from "node:crypto";
import type { SyncRun } from "@/lib/generated/prisma/client";
import { runOutcome } from "@/lib/sync-config/run-outcome";
import { PING_EVENT, type WebhookEvent } from "@/lib/sync-config/webhook-events";
import type { WebhookPayload } from "@/lib/validation/webhook-payload";

/** The body of a delivery: its one schema is lib/validation/webhook-payload.ts. */
export type WebhookEnvelope = WebhookPayload;

export const newEventId = (): string => `evt_${randomUUID().replace(/-/g, "")}`;

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

/** The event `type` of `run`, as it is now. */
export function runEventPayload(type: WebhookEvent, run: SyncRun, at: Date = new Date()): WebhookEnvelope {
  return {
    id: newEventId(),
    type,
    created_at: at.toISOString(),
    workspace_id: run.workspaceId,
    data: {
      sync_id: run.syncId,
      sync_run_id: run.id,
      status: run.status,
      outcome: runOutcome({ status: run.status, failed_rows: run.failedRows, error: run.error, canceled_by: run.canceledBy }),
      sync_run_type: run.syncRunType,
      started_at: iso(run.startedAt),
      finished_at: iso(run.finishedAt),
      error: run.error,
      total_query_rows: run.totalQueryRows,
      total_rows: run.totalRows,
      skipped_rows: run.skippedRows,
      successful_rows: run.successfulRows,
      failed_rows: run.failedRows,
      duplicate_rows: run.duplicateRows,
      processed_rows: run.processedRows,
    },
  };
}

/** The test button's event: nothing happened, the receiver sees what a delivery looks like. */
export function pingPayload(workspaceId: number, subscriptionId: number, at: Date = new Date()): WebhookEnvelope {
  return {
    id: newEventId(),
    type: PING_EVENT,
    created_at: at.toISOString(),
    workspace_id: workspaceId,
    data: { subscription_id: subscriptionId, message: "A test event from Datasync: your endpoint is reachable." },
  };
}

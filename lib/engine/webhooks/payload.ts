// The JSON bodies webhook deliveries carry (docs/webhooks.md): an envelope {id, type, created_at,
// workspace_id, data}; a run event's data is the run's ids, status, outcome and counters, named as
// in the sync run resource (lib/serializers/sync-runs.ts).
import { randomUUID } from "node:crypto";
import type { RunEvent } from "../events";
import { PING_EVENT, type WebhookEvent } from "@/lib/sync-rules/webhook-events";
import type { WebhookPayload } from "@/lib/validation/webhook-payload";

/** The body of a delivery: its one schema is lib/validation/webhook-payload.ts. */
export type WebhookEnvelope = WebhookPayload;

export const newEventId = (): string => `evt_${randomUUID().replace(/-/g, "")}`;

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

/** The event `type` of the run a bus event describes (events.ts), as its status change left it. */
export function runEventPayload(type: WebhookEvent, run: RunEvent, at: Date = new Date()): WebhookEnvelope {
  const c = run.counts;
  return {
    id: newEventId(),
    type,
    created_at: at.toISOString(),
    workspace_id: run.workspaceId,
    data: {
      sync_id: run.syncId,
      sync_run_id: run.runId,
      status: run.status,
      outcome: run.outcome,
      sync_run_type: run.runType,
      started_at: iso(run.startedAt),
      finished_at: iso(run.finishedAt),
      error: run.error,
      total_query_rows: c.totalQueryRows,
      total_rows: c.totalRows,
      skipped_rows: c.skippedRows,
      successful_rows: c.successfulRows,
      failed_rows: c.failedRows,
      duplicate_rows: c.duplicateRows,
      processed_rows: c.processedRows,
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

// Sync resources with flat source/destination/model summaries and the latest run. The summaries have
// the members of the reference's sync serializer (connectors without their configuration; the model
// with its source connector), which its console reads: model.connector.icon, model.query, … .
// The view's timestamps are ISO text already (lib/services/syncs/view.ts).
import type { ConnectorSummary, ModelSummary, SyncView } from "@/lib/services/syncs/syncs";
import type { RunTruthFacts } from "@/lib/services/syncs/view";
import type { ActorAccess } from "@/lib/auth/actors";
import { getDefinition } from "@/lib/connectors/registry";
import { effectiveGuard, guardSettings } from "@/lib/sync-rules/guard";
import { runOutcome } from "@/lib/sync-rules/run-outcome";
import { connectorIcon, connectorName } from "./connectors";
import { jsonObjectSchema } from "@/lib/validation/connectors";
import { parseStored } from "@/lib/validation/stored";
import { syncConfigurationSchema } from "@/lib/validation/syncs";
import { resource } from "./resource";
import type { SyncAttributes, SyncConnector, SyncDocument, SyncModel, SyncResource } from "./syncs.schema";

const connector = (c: ConnectorSummary): SyncConnector => ({
  id: c.id,
  name: c.name,
  description: c.description,
  connector_type: c.connectorType,
  workspace_id: c.workspaceId,
  connector_name: connectorName(c),
  icon: connectorIcon(c),
  created_at: c.createdAt,
  updated_at: c.updatedAt,
});

const model = (m: ModelSummary): SyncModel => ({
  id: m.id,
  name: m.name,
  description: m.description,
  query: m.query,
  query_type: m.queryType,
  configuration: parseStored(jsonObjectSchema, m.configuration, `configuration of model ${m.id}`),
  primary_key: m.primaryKey,
  connector_id: m.connectorId,
  connector: connector(m.connector),
  created_at: m.createdAt,
  updated_at: m.updatedAt,
});

/** A run's derived outcome and the facts its words need (lib/sync-rules/run-outcome.ts). */
const outcomeOf = (r: { status: string; failedRows: number; error: string | null; canceledBy: string | null } & RunTruthFacts, access: ActorAccess) => ({
  outcome: runOutcome({ status: r.status, failed_rows: r.failedRows, error: r.error, canceled_by: r.canceledBy }),
  failed_rows: r.failedRows,
  canceled_by: access.actors ? r.canceledBy : null,
  successful_rows: r.successfulRows,
  approved: r.approvedBy !== null,
  approved_by: access.actors ? r.approvedBy : null,
  held: r.held,
});

/** The limits as set: only those present in the column (left out: the default). */
function storedGuard(stored: unknown) {
  const set = guardSettings(stored);
  return Object.fromEntries(Object.entries(set).filter(([, v]) => v !== undefined));
}

/** `access`: whether the caller may read who canceled a run (lib/auth/actors.ts). */
export const serializeSync = (s: SyncView, access: ActorAccess): SyncResource =>
  resource(s.id, "syncs", {
    name: s.name,
    description: s.description,
    source_id: s.sourceId,
    destination_id: s.destinationId,
    model_id: s.modelId,
    configuration: parseStored(syncConfigurationSchema, s.configuration, `configuration of sync ${s.id}`),
    schedule_type: s.scheduleType,
    sync_mode: s.syncMode,
    sync_interval: s.syncInterval,
    sync_interval_unit: s.syncIntervalUnit,
    cron_expression: s.cronExpression,
    timezone: s.timezone,
    cursor_field: s.cursorField,
    current_cursor_field: s.currentCursorField,
    stream_name: s.streamName,
    status: s.status,
    detect_deletes: s.detectDeletes,
    live: s.live,
    guard: s.guard === null ? null : storedGuard(s.guard),
    effective_guard: effectiveGuard({ ...s, destinationCategory: getDefinition(s.destination.connectorName, "destination")?.category }),
    write_mode: s.writeMode,
    next_run_at: s.nextRunAt,
    source: connector(s.source),
    destination: connector(s.destination),
    model: model(s.model),
    last_run: s.lastRun
      ? {
          id: s.lastRun.id,
          status: s.lastRun.status,
          sync_run_type: s.lastRun.syncRunType,
          started_at: s.lastRun.startedAt,
          finished_at: s.lastRun.finishedAt,
          ...outcomeOf(
            {
              ...s.lastRun,
              failedRows: s.lastRun.failedRows ?? 0,
              error: s.lastRun.error ?? null,
              canceledBy: s.lastRun.canceledBy ?? null,
              successfulRows: s.lastRun.successfulRows ?? 0,
              approvedBy: s.lastRun.approvedBy ?? null,
              held: s.lastRun.held ?? false,
            },
            access,
          ),
        }
      : null,
    last_outcome: s.lastEnded
      ? { sync_run_id: s.lastEnded.id, status: s.lastEnded.status, sync_run_type: "general" as const, finished_at: s.lastEnded.finishedAt, ...outcomeOf(s.lastEnded, access) }
      : null,
    created_at: s.createdAt,
    updated_at: s.updatedAt,
  } satisfies SyncAttributes);

/**
 * One sync as GET /syncs/{id} and POST /syncs return it: the bare resource (the API contract) and the
 * same resource again under `data`, where the reference server puts it and its console reads it.
 */
export function serializeSyncDocument(s: SyncView, access: ActorAccess): SyncDocument {
  const sync = serializeSync(s, access);
  return { ...sync, data: sync };
}

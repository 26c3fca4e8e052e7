// Sync resources with flat source/destination/model summaries and the latest run.
import type { SyncView } from "@/lib/services/syncs";
import { connectorIcon } from "./connectors";
import { iso, resource } from "./resource";

const connector = (c: SyncView["source"]) => ({ id: c.id, name: c.name, connector_name: c.connectorName, icon: connectorIcon(c) });

export const serializeSync = (s: SyncView) =>
  resource(s.id, "syncs", {
    name: s.name,
    description: s.description,
    source_id: s.sourceId,
    destination_id: s.destinationId,
    model_id: s.modelId,
    configuration: s.configuration,
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
    next_run_at: iso(s.nextRunAt),
    source: connector(s.source),
    destination: connector(s.destination),
    model: { id: s.model.id, name: s.model.name },
    last_run: s.lastRun
      ? {
          id: s.lastRun.id,
          status: s.lastRun.status,
          sync_run_type: s.lastRun.syncRunType,
          started_at: iso(s.lastRun.startedAt),
          finished_at: iso(s.lastRun.finishedAt),
        }
      : null,
    created_at: iso(s.createdAt),
    updated_at: iso(s.updatedAt),
  });

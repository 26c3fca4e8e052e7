// Syncs: a source, a model of that source, a destination stream and a schedule. Soft-deleted syncs
// (deleted_at set) are invisible: every lookup filters them out, so they are 404 everywhere.
import type { Catalog as CatalogJson } from "@/lib/connectors/types";
import { DEFAULT_SORT } from "@/lib/validation/sort";
import { prisma } from "@/lib/db/client";
import { compileMapping, MappingConfigurationError } from "@/lib/engine/mapping";
import { computeNextRunAt } from "@/lib/engine/schedule";
import { cancelSync, transitionSyncStatus, triggerSync, triggerTestRun } from "@/lib/engine";
import { FailedDependency, NotFound, ValidationFailed, type FieldError } from "@/lib/errors";
import { Prisma, type Sync, type SyncRunStatus, type SyncRunType } from "@/lib/generated/prisma/client";
import type { Page } from "@/lib/http/pagination";
import {
  scheduleErrors,
  type CreateSyncInput,
  type ListSyncsQuery,
  type ScheduleInput,
  type UpdateSyncInput,
} from "@/lib/validation/syncs";
import { audit } from "./audit";
import type { AuthContext } from "./auth-context";

type Tx = Prisma.TransactionClient;
type Auth = Pick<AuthContext, "workspaceId" | "user">;

const connectorSummary = { select: { id: true, name: true, connectorName: true, connectorType: true } } as const;
const withRelations = {
  source: connectorSummary,
  destination: connectorSummary,
  model: { select: { id: true, name: true } },
} as const satisfies Prisma.SyncInclude;

export interface LastRun {
  id: number;
  status: SyncRunStatus;
  syncRunType: SyncRunType;
  startedAt: Date | null;
  finishedAt: Date | null;
}

/** A sync with the summaries its resource carries. */
export type SyncView = Prisma.SyncGetPayload<{ include: typeof withRelations }> & { lastRun: LastRun | null };

function invalid(errors: FieldError[]): ValidationFailed {
  return new ValidationFailed(`Validation failed: ${errors.map((e) => `${e.path}: ${e.message}`).join("; ")}.`, { errors });
}

/** The latest run of each sync in one query (a LATERAL lookup per id, not one query per sync). */
async function lastRuns(db: Tx, syncIds: number[]): Promise<Map<number, LastRun>> {
  if (syncIds.length === 0) return new Map();
  const rows = await db.$queryRaw<
    { sync_id: number; id: number; status: SyncRunStatus; sync_run_type: SyncRunType; started_at: Date | null; finished_at: Date | null }[]
  >(Prisma.sql`
    SELECT s.id AS sync_id, r.id, r.status::text AS status, r.sync_run_type::text AS sync_run_type, r.started_at, r.finished_at
      FROM unnest(${syncIds}::int[]) AS s(id)
      CROSS JOIN LATERAL (
        SELECT id, status, sync_run_type, started_at, finished_at FROM sync_runs
         WHERE sync_id = s.id ORDER BY created_at DESC, id DESC LIMIT 1
      ) r`);
  return new Map(
    rows.map((r) => [
      r.sync_id,
      { id: r.id, status: r.status, syncRunType: r.sync_run_type, startedAt: r.started_at, finishedAt: r.finished_at },
    ]),
  );
}

async function withLastRuns(db: Tx, syncs: Prisma.SyncGetPayload<{ include: typeof withRelations }>[]): Promise<SyncView[]> {
  const runs = await lastRuns(
    db,
    syncs.map((s) => s.id),
  );
  return syncs.map((s) => ({ ...s, lastRun: runs.get(s.id) ?? null }));
}

export async function listSyncs(workspaceId: number, filter: ListSyncsQuery, page: Page) {
  const db = prisma();
  const where: Prisma.SyncWhereInput = {
    workspaceId,
    deletedAt: null,
    ...(filter.status ? { status: filter.status } : {}),
    ...(filter.model_id !== undefined ? { modelId: filter.model_id } : {}),
    ...(filter.source_id !== undefined ? { sourceId: filter.source_id } : {}),
    ...(filter.destination_id !== undefined ? { destinationId: filter.destination_id } : {}),
  };
  const [rows, total] = await db.$transaction([
    db.sync.findMany({ where, include: withRelations, orderBy: filter.sort ?? DEFAULT_SORT, skip: page.skip, take: page.take }),
    db.sync.count({ where }),
  ]);
  return { rows: await withLastRuns(db, rows), total };
}

/** The sync row itself (not deleted, in the workspace), for services that act on it. */
export async function requireSync(workspaceId: number, id: number, db: Tx = prisma()): Promise<Sync> {
  const sync = await db.sync.findFirst({ where: { id, workspaceId, deletedAt: null } });
  if (!sync) throw new NotFound(`Sync ${id} was not found.`);
  return sync;
}

export async function getSync(workspaceId: number, id: number, db: Tx = prisma()): Promise<SyncView> {
  const sync = await db.sync.findFirst({ where: { id, workspaceId, deletedAt: null }, include: withRelations });
  if (!sync) throw new NotFound(`Sync ${id} was not found.`);
  return (await withLastRuns(db, [sync]))[0];
}

interface References {
  source_id: number;
  destination_id: number;
  model_id: number;
  stream_name: string;
}

/** Source, destination and model must be the workspace's, of the right kind, and fit together. */
async function referenceErrors(tx: Tx, workspaceId: number, refs: References): Promise<FieldError[]> {
  const [source, destination, model, catalog] = await Promise.all([
    tx.connector.findFirst({ where: { id: refs.source_id, workspaceId }, select: { connectorType: true } }),
    tx.connector.findFirst({ where: { id: refs.destination_id, workspaceId }, select: { connectorType: true } }),
    tx.model.findFirst({ where: { id: refs.model_id, workspaceId }, select: { connectorId: true } }),
    tx.catalog.findFirst({ where: { connectorId: refs.destination_id, workspaceId }, select: { catalog: true } }),
  ]);
  const errors: FieldError[] = [];
  if (!source) errors.push({ path: "sync.source_id", message: `connector ${refs.source_id} was not found in this workspace` });
  else if (source.connectorType !== "source") {
    errors.push({ path: "sync.source_id", message: `connector ${refs.source_id} is a destination, not a source` });
  }
  if (!destination) errors.push({ path: "sync.destination_id", message: `connector ${refs.destination_id} was not found in this workspace` });
  else if (destination.connectorType !== "destination") {
    errors.push({ path: "sync.destination_id", message: `connector ${refs.destination_id} is a source, not a destination` });
  }
  if (!model) errors.push({ path: "sync.model_id", message: `model ${refs.model_id} was not found in this workspace` });
  else if (source && model.connectorId !== refs.source_id) {
    errors.push({ path: "sync.model_id", message: `model ${refs.model_id} reads from connector ${model.connectorId}, not from source ${refs.source_id}` });
  }
  if (destination?.connectorType === "destination") {
    if (!catalog) {
      errors.push({
        path: "sync.destination_id",
        message: `destination ${refs.destination_id} has no catalog yet; discover it (GET /api/v1/connectors/${refs.destination_id}/discover) or create one (POST /api/v1/catalogs)`,
      });
    } else {
      const names = ((catalog.catalog as unknown as CatalogJson).streams ?? []).map((s) => s.name);
      if (!names.includes(refs.stream_name)) {
        const shown = names.slice(0, 20).join(", ") + (names.length > 20 ? `, … (${names.length} streams)` : "");
        errors.push({ path: "sync.stream_name", message: `"${refs.stream_name}" is not a stream of destination ${refs.destination_id}; use one of: ${shown || "(none)"}` });
      }
    }
  }
  return errors;
}

function configurationErrors(configuration: unknown): FieldError[] {
  try {
    compileMapping(configuration);
    return [];
  } catch (err) {
    if (err instanceof MappingConfigurationError) return [{ path: "sync.configuration", message: err.message }];
    throw err;
  }
}

/** Only the fields the schedule type uses are kept (manual: none; cron: no interval; interval: no cron). */
function scheduleColumns(s: ScheduleInput) {
  const cron = s.cron_expression?.trim() || null;
  const useCron = s.schedule_type === "cron_expression" || (s.schedule_type === "automated" && cron !== null);
  const useInterval = s.schedule_type === "interval" || (s.schedule_type === "automated" && cron === null);
  return {
    scheduleType: s.schedule_type,
    syncInterval: useInterval ? (s.sync_interval ?? null) : null,
    syncIntervalUnit: useInterval ? (s.sync_interval_unit ?? null) : null,
    cronExpression: useCron ? cron : null,
    timezone: s.timezone || "UTC",
  };
}

export async function createSync(auth: Auth, input: CreateSyncInput): Promise<SyncView> {
  const schedule = scheduleColumns(input);
  return prisma().$transaction(async (tx) => {
    const errors = [...(await referenceErrors(tx, auth.workspaceId, input)), ...configurationErrors(input.configuration)];
    if (errors.length > 0) throw invalid(errors);
    const created = await tx.sync.create({
      data: {
        workspaceId: auth.workspaceId,
        sourceId: input.source_id,
        destinationId: input.destination_id,
        modelId: input.model_id,
        name: input.name ?? "",
        description: input.description ?? "",
        configuration: (input.configuration ?? []) as Prisma.InputJsonValue,
        syncMode: input.sync_mode,
        streamName: input.stream_name,
        cursorField: input.cursor_field || null,
        detectDeletes: input.detect_deletes ?? false,
        status: "pending",
        ...schedule,
        nextRunAt: computeNextRunAt({ ...schedule, status: "pending" }),
      },
    });
    await audit(auth, "create", "sync", created.id, { name: created.name, schedule_type: created.scheduleType }, tx);
    return getSync(auth.workspaceId, created.id, tx);
  });
}

const SCHEDULE_KEYS = ["schedule_type", "sync_interval", "sync_interval_unit", "cron_expression", "timezone"] as const;

export async function updateSync(auth: Auth, id: number, input: UpdateSyncInput): Promise<SyncView> {
  return prisma().$transaction(async (tx) => {
    const existing = await requireSync(auth.workspaceId, id, tx);
    const errors: FieldError[] = [];
    if (input.cursor_field !== undefined && (input.cursor_field || null) !== existing.cursorField) {
      errors.push({
        path: "sync.cursor_field",
        message: `cannot change after the sync is created (it is ${existing.cursorField === null ? "not set" : `"${existing.cursorField}"`}); create a new sync instead`,
      });
    }
    // The schedule rules apply to the result: fields not sent keep their stored values.
    const scheduleChanged = SCHEDULE_KEYS.some((k) => input[k] !== undefined);
    const schedule: ScheduleInput = {
      schedule_type: input.schedule_type ?? existing.scheduleType,
      sync_interval: input.sync_interval !== undefined ? input.sync_interval : existing.syncInterval,
      sync_interval_unit: input.sync_interval_unit !== undefined ? input.sync_interval_unit : existing.syncIntervalUnit,
      cron_expression: input.cron_expression !== undefined ? input.cron_expression : existing.cronExpression,
      timezone: input.timezone !== undefined ? input.timezone : existing.timezone,
    };
    if (scheduleChanged) errors.push(...scheduleErrors(schedule));
    const refs: References = {
      source_id: input.source_id ?? existing.sourceId,
      destination_id: input.destination_id ?? existing.destinationId,
      model_id: input.model_id ?? existing.modelId,
      stream_name: input.stream_name ?? existing.streamName,
    };
    const refsChanged = (["source_id", "destination_id", "model_id", "stream_name"] as const).some((k) => input[k] !== undefined);
    if (refsChanged) errors.push(...(await referenceErrors(tx, auth.workspaceId, refs)));
    if (input.configuration !== undefined) errors.push(...configurationErrors(input.configuration));
    if (errors.length > 0) throw invalid(errors);

    const columns = scheduleChanged ? scheduleColumns(schedule) : {};
    await tx.sync.update({
      where: { id: existing.id, workspaceId: auth.workspaceId },
      data: {
        sourceId: refs.source_id,
        destinationId: refs.destination_id,
        modelId: refs.model_id,
        streamName: refs.stream_name,
        ...(input.name !== undefined ? { name: input.name ?? "" } : {}),
        ...(input.description !== undefined ? { description: input.description ?? "" } : {}),
        ...(input.configuration !== undefined ? { configuration: (input.configuration ?? []) as Prisma.InputJsonValue } : {}),
        ...(input.sync_mode !== undefined ? { syncMode: input.sync_mode } : {}),
        ...(input.detect_deletes !== undefined ? { detectDeletes: input.detect_deletes } : {}),
        ...columns,
        // Only a new schedule moves the next run; editing a mapping must not postpone it.
        ...(scheduleChanged ? { nextRunAt: computeNextRunAt({ ...scheduleColumns(schedule), status: existing.status }) } : {}),
      },
    });
    await audit(auth, "update", "sync", id, { fields: Object.keys(input) }, tx);
    return getSync(auth.workspaceId, id, tx);
  });
}

export async function deleteSync(auth: Auth, id: number): Promise<void> {
  await requireSync(auth.workspaceId, id);
  // Stop a waiting or running run first; the engine only sees syncs that are not deleted.
  await cancelSync(auth.workspaceId, id).catch((err: unknown) => {
    if (!(err instanceof FailedDependency)) throw err;
  });
  await prisma().$transaction(async (tx) => {
    const sync = await requireSync(auth.workspaceId, id, tx);
    await tx.sync.update({ where: { id: sync.id }, data: { deletedAt: new Date(), nextRunAt: null } });
    await audit(auth, "delete", "sync", id, { name: sync.name }, tx);
  });
}

/**
 * Disable: status disabled, no next run, its active run canceled. Enable: status pending, next run
 * from the schedule. Asking for the state the sync is already in changes nothing.
 */
export async function setSyncEnabled(auth: Auth, id: number, enable: boolean): Promise<SyncView> {
  const sync = await requireSync(auth.workspaceId, id);
  if (enable === (sync.status === "disabled")) {
    await transitionSyncStatus(auth.workspaceId, id, enable ? "pending" : "disabled");
    await audit(auth, enable ? "enable" : "disable", "sync", id, { from: sync.status });
  }
  return getSync(auth.workspaceId, id);
}

/** Manual run now (POST /schedule_syncs): 424 when disabled or already running. */
export async function triggerSyncRun(auth: Auth, syncId: number) {
  const run = await triggerSync(auth.workspaceId, syncId);
  await audit(auth, "trigger", "sync", syncId, { sync_run_id: run.id });
  return run;
}

/** Cancels the active run (DELETE /schedule_syncs/{sync_id}): 424 when there is none. */
export async function cancelSyncRun(auth: Auth, syncId: number) {
  const run = await cancelSync(auth.workspaceId, syncId);
  await audit(auth, "cancel", "sync", syncId, { sync_run_id: run.id });
  return run;
}

/** A test run with one random row: 424 when disabled, 404 when unknown. */
export async function testSync(auth: Auth, syncId: number) {
  const run = await triggerTestRun(auth.workspaceId, syncId);
  await audit(auth, "test", "sync", syncId, { sync_run_id: run.id });
  return run;
}

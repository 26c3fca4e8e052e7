// Syncs: a source, a model of that source, a destination stream and a schedule. Soft-deleted syncs
// (deleted_at set) are invisible: every lookup filters them out, so they are 404 everywhere.
import "server-only";
import type { Catalog as CatalogJson } from "@/lib/connectors/types";
import { DEFAULT_SORT, type SortOrder } from "@/lib/validation/sort";
import { prisma, queryRows } from "@/lib/db/client";
import { compileMapping, MappingConfigurationError } from "@/lib/sync-config/mapping";
import { computeNextRunAt } from "@/lib/sync-config/schedule";
import { cancelSync, transitionSyncStatus, triggerSync, triggerTestRun } from "@/lib/engine";
import { FailedDependency, NotFound, ValidationFailed, type FieldError } from "@/lib/errors";
import {
  Prisma,
  type Connector,
  type ConnectorType,
  type Model,
  type QueryType,
  type ScheduleType,
  type Sync,
  type SyncIntervalUnit,
  type SyncMode,
  type SyncRunStatus,
  type SyncRunType,
  type SyncStatus,
} from "@/lib/generated/prisma/client";
import type { Page } from "@/lib/page";
import {
  scheduleConflictErrors,
  scheduleErrors,
  scheduleUses,
  type CreateSyncInput,
  type ListSyncsQuery,
  type ScheduleInput,
  type UpdateSyncInput,
} from "@/lib/validation/syncs";
import { audit } from "./audit";
import type { AuthContext } from "./auth-context";

type Tx = Prisma.TransactionClient;
type Auth = Pick<AuthContext, "workspaceId" | "user">;

export interface LastRun {
  id: number;
  status: SyncRunStatus;
  syncRunType: SyncRunType;
  startedAt: Date | null;
  finishedAt: Date | null;
}

/** A connector without its configuration (the summaries never carry one, not even masked). */
export type ConnectorSummary = Pick<
  Connector,
  "id" | "name" | "description" | "connectorName" | "connectorType" | "workspaceId" | "createdAt" | "updatedAt"
>;

/** The sync's model, with the source connector it reads from. */
export type ModelSummary = Pick<
  Model,
  "id" | "name" | "description" | "query" | "queryType" | "configuration" | "primaryKey" | "connectorId" | "createdAt" | "updatedAt"
> & { connector: ConnectorSummary };

/** A sync with the summaries its resource carries. */
export type SyncView = Sync & {
  source: ConnectorSummary;
  destination: ConnectorSummary;
  model: ModelSummary;
  lastRun: LastRun | null;
};

/** A connector summary's columns, as the view selects them under a prefix (src_, dst_, mc_). */
const CONNECTOR_COLUMNS = ["name", "description", "connector_name", "connector_type", "workspace_id", "created_at", "updated_at"] as const;
type ConnectorColumns<P extends string> = { [K in (typeof CONNECTOR_COLUMNS)[number] as `${P}${K}`]: unknown };

interface SyncViewRow extends ConnectorColumns<"src_">, ConnectorColumns<"dst_">, ConnectorColumns<"mc_"> {
  id: number;
  workspace_id: number;
  source_id: number;
  destination_id: number;
  model_id: number;
  name: string;
  description: string;
  configuration: Prisma.JsonValue;
  schedule_type: ScheduleType;
  sync_mode: SyncMode;
  sync_interval: number | null;
  sync_interval_unit: SyncIntervalUnit | null;
  cron_expression: string | null;
  timezone: string;
  stream_name: string;
  cursor_field: string | null;
  current_cursor_field: string | null;
  detect_deletes: boolean;
  status: SyncStatus;
  next_run_at: Date | null;
  deleted_at: Date | null;
  created_at: Date;
  updated_at: Date;
  model_name: string;
  model_description: string;
  model_query: string;
  model_query_type: QueryType;
  model_configuration: Prisma.JsonValue;
  model_primary_key: string | null;
  model_connector_id: number;
  model_created_at: Date;
  model_updated_at: Date;
  run_id: number | null;
  run_status: SyncRunStatus | null;
  run_type: SyncRunType | null;
  run_started_at: Date | null;
  run_finished_at: Date | null;
}

/** A connector summary's columns from the connectors row aliased `alias`, each as `<alias>_<column>`. */
const connectorColumns = (alias: "src" | "dst" | "mc") =>
  Prisma.raw(CONNECTOR_COLUMNS.map((c) => `${alias}.${c}${c === "connector_type" ? "::text" : ""} AS ${alias}_${c}`).join(", "));

/**
 * Syncs of `page` (a subquery of syncs rows, plus `ord` when `ordered`) with their source,
 * destination, model (with its own connector) and latest run, in one statement: Prisma's include would
 * be a query per relation, plus one for the latest runs.
 */
const syncViewSelect = (page: Prisma.Sql, ordered = false) => Prisma.sql`
  SELECT ${ordered ? Prisma.sql`s.ord, ` : Prisma.empty}s.id, s.workspace_id, s.source_id, s.destination_id, s.model_id, s.name, s.description, s.configuration,
         s.schedule_type::text, s.sync_mode::text, s.sync_interval, s.sync_interval_unit::text, s.cron_expression,
         s.timezone, s.stream_name, s.cursor_field, s.current_cursor_field, s.detect_deletes, s.status::text,
         s.next_run_at, s.deleted_at, s.created_at, s.updated_at,
         ${connectorColumns("src")}, ${connectorColumns("dst")}, ${connectorColumns("mc")},
         m.name AS model_name, m.description AS model_description, m.query AS model_query, m.query_type::text AS model_query_type,
         m.configuration AS model_configuration, m.primary_key AS model_primary_key, m.connector_id AS model_connector_id,
         m.created_at AS model_created_at, m.updated_at AS model_updated_at,
         r.id AS run_id, r.status::text AS run_status, r.sync_run_type::text AS run_type,
         r.started_at AS run_started_at, r.finished_at AS run_finished_at
    FROM (${page}) s
    JOIN connectors src ON src.id = s.source_id
    JOIN connectors dst ON dst.id = s.destination_id
    JOIN models m ON m.id = s.model_id
    JOIN connectors mc ON mc.id = m.connector_id
    LEFT JOIN LATERAL (
      SELECT id, status, sync_run_type, started_at, finished_at FROM sync_runs
       WHERE sync_id = s.id ORDER BY created_at DESC, id DESC LIMIT 1
    ) r ON true`;

function connectorSummary<P extends string>(r: ConnectorColumns<P>, prefix: P, id: number): ConnectorSummary {
  const c = r as Record<string, unknown>;
  return {
    id,
    name: c[`${prefix}name`] as string,
    description: c[`${prefix}description`] as string,
    connectorName: c[`${prefix}connector_name`] as string,
    connectorType: c[`${prefix}connector_type`] as ConnectorType,
    workspaceId: c[`${prefix}workspace_id`] as number,
    createdAt: c[`${prefix}created_at`] as Date,
    updatedAt: c[`${prefix}updated_at`] as Date,
  };
}

function syncView(r: SyncViewRow): SyncView {
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    sourceId: r.source_id,
    destinationId: r.destination_id,
    modelId: r.model_id,
    name: r.name,
    description: r.description,
    configuration: r.configuration,
    scheduleType: r.schedule_type,
    syncMode: r.sync_mode,
    syncInterval: r.sync_interval,
    syncIntervalUnit: r.sync_interval_unit,
    cronExpression: r.cron_expression,
    timezone: r.timezone,
    streamName: r.stream_name,
    cursorField: r.cursor_field,
    currentCursorField: r.current_cursor_field,
    detectDeletes: r.detect_deletes,
    status: r.status,
    nextRunAt: r.next_run_at,
    deletedAt: r.deleted_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    source: connectorSummary(r, "src_", r.source_id),
    destination: connectorSummary(r, "dst_", r.destination_id),
    model: {
      id: r.model_id,
      name: r.model_name,
      description: r.model_description,
      query: r.model_query,
      queryType: r.model_query_type,
      configuration: r.model_configuration,
      primaryKey: r.model_primary_key,
      connectorId: r.model_connector_id,
      createdAt: r.model_created_at,
      updatedAt: r.model_updated_at,
      connector: connectorSummary(r, "mc_", r.model_connector_id),
    },
    lastRun:
      r.run_id === null
        ? null
        : { id: r.run_id, status: r.run_status!, syncRunType: r.run_type!, startedAt: r.run_started_at, finishedAt: r.run_finished_at },
  };
}

/** Sortable fields of the list (Prisma names, from the sort schema) and their columns. */
const SORT_COLUMNS: Record<string, string> = {
  id: "id",
  name: "name",
  status: "status",
  nextRunAt: "next_run_at",
  createdAt: "created_at",
  updatedAt: "updated_at",
};

/** ORDER BY terms over the syncs table aliased s. */
function orderBy(sort: SortOrder): Prisma.Sql {
  const keys = sort.flatMap((entry) => Object.entries(entry));
  const terms = keys.map(([field, dir]) => {
    const column = SORT_COLUMNS[field];
    if (!column) throw new Error(`Unknown sync sort field ${field}`);
    return `s.${column} ${dir === "desc" ? "DESC" : "ASC"}`;
  });
  // The (workspace_id, deleted_at, updated_at DESC) index only yields rows in updated_at order when
  // deleted_at is part of the order: PostgreSQL does not treat `deleted_at IS NULL` as fixing it.
  // Every listed row has deleted_at NULL, so the extra key changes nothing but the plan: a page is
  // an index range scan (0.3 ms) instead of a top-N sort of the whole workspace (7 ms at 10k syncs).
  const [first] = keys;
  if (first?.[0] === "updatedAt") terms.unshift(`s.deleted_at ${first[1] === "desc" ? "ASC" : "DESC"}`);
  return Prisma.raw(terms.join(", "));
}

export async function listSyncs(workspaceId: number, filter: ListSyncsQuery, page: Page) {
  const conditions = [
    Prisma.sql`s.workspace_id = ${workspaceId}`,
    Prisma.sql`s.deleted_at IS NULL`,
    ...(filter.status ? [Prisma.sql`s.status = ${filter.status}::sync_status`] : []),
    ...(filter.model_id !== undefined ? [Prisma.sql`s.model_id = ${filter.model_id}`] : []),
    ...(filter.source_id !== undefined ? [Prisma.sql`s.source_id = ${filter.source_id}`] : []),
    ...(filter.destination_id !== undefined ? [Prisma.sql`s.destination_id = ${filter.destination_id}`] : []),
  ];
  const where = Prisma.join(conditions, " AND ");
  const sort = filter.sort ?? DEFAULT_SORT;
  const order = orderBy(sort);
  // `ord` carries the page's order through the joins (the view casts enums to text, so ordering the
  // result by its columns again would sort status alphabetically).
  const pageQuery = Prisma.sql`
    SELECT s.*, row_number() OVER (ORDER BY ${order}) AS ord FROM syncs s
     WHERE ${where} ORDER BY ${order} LIMIT ${page.take} OFFSET ${page.skip}`;
  // One statement, one snapshot: the total and the page (a row of NULLs when the page is empty).
  const rows = await queryRows<Partial<SyncViewRow> & { total: number }>(Prisma.sql`
    SELECT c.total, p.* FROM (SELECT count(*)::int AS total FROM syncs s WHERE ${where}) c
      LEFT JOIN LATERAL (${syncViewSelect(pageQuery, true)}) p ON true
     ORDER BY p.ord`);
  return {
    rows: rows.filter((r) => r.id != null).map((r) => syncView(r as SyncViewRow)),
    total: rows[0]?.total ?? 0,
  };
}

/** The sync row itself (not deleted, in the workspace), for services that act on it. */
export async function requireSync(workspaceId: number, id: number, db: Tx = prisma()): Promise<Sync> {
  const sync = await db.sync.findFirst({ where: { id, workspaceId, deletedAt: null } });
  if (!sync) throw new NotFound(`Sync ${id} was not found.`);
  return sync;
}

export async function getSync(workspaceId: number, id: number, db: Tx = prisma()): Promise<SyncView> {
  const [row] = await db.$queryRaw<SyncViewRow[]>(
    syncViewSelect(Prisma.sql`SELECT * FROM syncs WHERE id = ${id} AND workspace_id = ${workspaceId} AND deleted_at IS NULL`),
  );
  if (!row) throw new NotFound(`Sync ${id} was not found.`);
  return syncView(row);
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
    tx.model.findFirst({ where: { id: refs.model_id, workspaceId }, select: { connectorId: true, primaryKey: true } }),
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
  if (model && !model.primaryKey) {
    errors.push({
      path: "sync.model_id",
      message: `model ${refs.model_id} has no primary_key, and a sync tracks changes by it; set one (PUT /api/v1/models/${refs.model_id} {model: {primary_key}})`,
    });
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
  const { cron, useCron, useInterval } = scheduleUses(s);
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
    const set = { sync_interval: (input.sync_interval ?? 0) > 0, cron_expression: !!input.cron_expression?.trim() };
    const errors = [
      ...scheduleConflictErrors(input, set),
      ...(await referenceErrors(tx, auth.workspaceId, input)),
      ...configurationErrors(input.configuration),
    ];
    if (errors.length > 0) throw ValidationFailed.fromFields(errors);
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
    // A value equal to the stored one is what the client read back (the reference console sends every
    // schedule field on each save, the old interval included when it switches to cron), not a request.
    const set = {
      sync_interval: (input.sync_interval ?? 0) > 0 && input.sync_interval !== existing.syncInterval,
      cron_expression: !!input.cron_expression?.trim() && input.cron_expression?.trim() !== existing.cronExpression,
    };
    if (scheduleChanged) errors.push(...scheduleErrors(schedule), ...scheduleConflictErrors(schedule, set));
    const refs: References = {
      source_id: input.source_id ?? existing.sourceId,
      destination_id: input.destination_id ?? existing.destinationId,
      model_id: input.model_id ?? existing.modelId,
      stream_name: input.stream_name ?? existing.streamName,
    };
    const refsChanged = (["source_id", "destination_id", "model_id", "stream_name"] as const).some((k) => input[k] !== undefined);
    if (refsChanged) errors.push(...(await referenceErrors(tx, auth.workspaceId, refs)));
    if (input.configuration !== undefined) errors.push(...configurationErrors(input.configuration));
    if (errors.length > 0) throw ValidationFailed.fromFields(errors);

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
 * Disable: status disabled, no next run, its active run stopped (failed, the reason in error). Enable: status pending, next run
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

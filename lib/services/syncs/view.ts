// The sync resource as the API shows it: the sync with its source, destination, model (with its own
// connector) and latest run, read by one hand-mapped SQL view instead of an include per relation.
// Timestamps are ISO 8601 text, as the API shows them: the list reads them so from the database
// (queryRows' "iso" timestamps), sparing a Date and its formatting per value.
import "server-only";
import { DEFAULT_SORT, type SortOrder } from "@/lib/validation/sort";
import { prisma, queryRows, type IsoTimestamp } from "@/lib/db/client";
import { NotFound } from "@/lib/errors";
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
  type WriteMode,
} from "@/lib/generated/prisma/client";
import type { Page } from "@/lib/page";
import type { ListSyncsQuery } from "@/lib/validation/syncs";

type Tx = Prisma.TransactionClient;

export type LastRun = {
  id: number;
  status: SyncRunStatus;
  syncRunType: SyncRunType;
  startedAt: IsoTimestamp | null;
  finishedAt: IsoTimestamp | null;
  /** What its outcome is derived from (lib/sync-rules/run-outcome.ts). */
  failedRows?: number;
  error?: string | null;
  canceledBy?: string | null;
} & Partial<RunTruthFacts>;

/** Beside status and counters, what a run's words need (lib/sync-rules/run-outcome.ts, runTruth). */
export interface RunTruthFacts {
  successfulRows: number;
  approvedBy: string | null;
  /** Its plan broke its sync's limits: it was held for approval. */
  held: boolean;
}

/** The latest general run that ended: what the sync's derived outcome shows while a new one runs. */
export type LastEndedRun = {
  id: number;
  status: SyncRunStatus;
  failedRows: number;
  error: string | null;
  canceledBy: string | null;
  finishedAt: IsoTimestamp | null;
} & RunTruthFacts;

/** Creation and update times, as ISO text. */
interface Stamped {
  createdAt: IsoTimestamp;
  updatedAt: IsoTimestamp;
}

/** A connector without its configuration (the summaries never carry one, not even masked). */
export type ConnectorSummary = Stamped &
  Pick<Connector, "id" | "name" | "description" | "connectorName" | "connectorType" | "workspaceId">;

/** The sync's model, with the source connector it reads from. */
export type ModelSummary = Stamped &
  Pick<Model, "id" | "name" | "description" | "query" | "queryType" | "configuration" | "primaryKey" | "connectorId"> & {
    connector: ConnectorSummary;
  };

/** A sync with the summaries its resource carries. */
export type SyncView = Stamped & Omit<Sync, "nextRunAt" | "deletedAt" | "createdAt" | "updatedAt" | "liveLsn"> & {
  nextRunAt: IsoTimestamp | null;
  deletedAt: IsoTimestamp | null;
  source: ConnectorSummary;
  destination: ConnectorSummary;
  model: ModelSummary;
  lastRun: LastRun | null;
  lastEnded?: LastEndedRun | null;
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
  live: boolean;
  write_mode: WriteMode;
  guard: Prisma.JsonValue;
  status: SyncStatus;
  next_run_at: Instant | null;
  deleted_at: Instant | null;
  created_at: Instant;
  updated_at: Instant;
  model_name: string;
  model_description: string;
  model_query: string;
  model_query_type: QueryType;
  model_configuration: Prisma.JsonValue;
  model_primary_key: string | null;
  model_connector_id: number;
  model_created_at: Instant;
  model_updated_at: Instant;
  run_id: number | null;
  run_status: SyncRunStatus | null;
  run_type: SyncRunType | null;
  run_started_at: Instant | null;
  run_finished_at: Instant | null;
  run_failed_rows: number | null;
  run_error: string | null;
  run_canceled_by: string | null;
  run_successful_rows: number | null;
  run_approved_by: string | null;
  run_held: boolean | null;
  ended_id: number | null;
  ended_status: SyncRunStatus | null;
  ended_failed_rows: number | null;
  ended_error: string | null;
  ended_canceled_by: string | null;
  ended_successful_rows: number | null;
  ended_approved_by: string | null;
  ended_held: boolean | null;
  ended_finished_at: Instant | null;
}

/** A timestamp of a view row: ISO text from listSyncs, a Date from getSync (Prisma's $queryRaw). */
type Instant = Date | IsoTimestamp;

function isoOf(at: Instant): IsoTimestamp;
function isoOf(at: Instant | null): IsoTimestamp | null;
function isoOf(at: Instant | null): IsoTimestamp | null {
  return at === null || typeof at === "string" ? at : at.toISOString();
}

/** A connector summary's columns from the connectors row aliased `alias`, each as `<alias>_<column>`. */
const connectorColumns = (alias: "src" | "dst" | "mc") =>
  Prisma.raw(CONNECTOR_COLUMNS.map((c) => `${alias}.${c}${c === "connector_type" ? "::text" : ""} AS ${alias}_${c}`).join(", "));

/** A run whose stored plan broke its sync's limits (sync_runs.plan.exceeded not empty): it was held. */
const HELD = Prisma.sql`CASE WHEN jsonb_typeof(plan->'exceeded') = 'array' THEN jsonb_array_length(plan->'exceeded') > 0 ELSE false END`;

/**
 * Syncs of `page` (a subquery of syncs rows, plus `ord` when `ordered`) with their source,
 * destination, model (with its own connector) and latest run, in one statement: Prisma's include would
 * be a query per relation, plus one for the latest runs.
 */
const syncViewSelect = (page: Prisma.Sql, ordered = false) => Prisma.sql`
  SELECT ${ordered ? Prisma.sql`s.ord, ` : Prisma.empty}s.id, s.workspace_id, s.source_id, s.destination_id, s.model_id, s.name, s.description, s.configuration,
         s.schedule_type::text, s.sync_mode::text, s.sync_interval, s.sync_interval_unit::text, s.cron_expression,
         s.timezone, s.stream_name, s.cursor_field, s.current_cursor_field, s.detect_deletes, s.live, s.write_mode::text, s.guard, s.status::text,
         s.next_run_at, s.deleted_at, s.created_at, s.updated_at,
         ${connectorColumns("src")}, ${connectorColumns("dst")}, ${connectorColumns("mc")},
         m.name AS model_name, m.description AS model_description, m.query AS model_query, m.query_type::text AS model_query_type,
         m.configuration AS model_configuration, m.primary_key AS model_primary_key, m.connector_id AS model_connector_id,
         m.created_at AS model_created_at, m.updated_at AS model_updated_at,
         r.id AS run_id, r.status::text AS run_status, r.sync_run_type::text AS run_type,
         r.started_at AS run_started_at, r.finished_at AS run_finished_at,
         r.failed_rows AS run_failed_rows, r.error AS run_error, r.canceled_by AS run_canceled_by,
         r.successful_rows AS run_successful_rows, r.approved_by AS run_approved_by, r.held AS run_held,
         e.id AS ended_id, e.status::text AS ended_status, e.failed_rows AS ended_failed_rows, e.error AS ended_error,
         e.canceled_by AS ended_canceled_by, e.finished_at AS ended_finished_at,
         e.successful_rows AS ended_successful_rows, e.approved_by AS ended_approved_by, e.held AS ended_held
    FROM (${page}) s
    JOIN connectors src ON src.id = s.source_id
    JOIN connectors dst ON dst.id = s.destination_id
    JOIN models m ON m.id = s.model_id
    JOIN connectors mc ON mc.id = m.connector_id
    LEFT JOIN LATERAL (
      SELECT id, status, sync_run_type, started_at, finished_at, failed_rows, error, canceled_by, successful_rows, approved_by,
             ${HELD} AS held FROM sync_runs
       WHERE sync_id = s.id ORDER BY created_at DESC, id DESC LIMIT 1
    ) r ON true
    LEFT JOIN LATERAL (
      SELECT id, status, failed_rows, error, canceled_by, finished_at, successful_rows, approved_by, ${HELD} AS held FROM sync_runs
       WHERE sync_id = s.id AND sync_run_type = 'general' AND status IN ('success', 'failed', 'canceled')
       ORDER BY created_at DESC, id DESC LIMIT 1
    ) e ON true`;

function connectorSummary<P extends string>(r: ConnectorColumns<P>, prefix: P, id: number): ConnectorSummary {
  const c = r as Record<string, unknown>;
  return {
    id,
    name: c[`${prefix}name`] as string,
    description: c[`${prefix}description`] as string,
    connectorName: c[`${prefix}connector_name`] as string,
    connectorType: c[`${prefix}connector_type`] as ConnectorType,
    workspaceId: c[`${prefix}workspace_id`] as number,
    createdAt: isoOf(c[`${prefix}created_at`] as Instant),
    updatedAt: isoOf(c[`${prefix}updated_at`] as Instant),
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
    live: r.live,
    writeMode: r.write_mode,
    guard: r.guard,
    status: r.status,
    nextRunAt: isoOf(r.next_run_at),
    deletedAt: isoOf(r.deleted_at),
    createdAt: isoOf(r.created_at),
    updatedAt: isoOf(r.updated_at),
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
      createdAt: isoOf(r.model_created_at),
      updatedAt: isoOf(r.model_updated_at),
      connector: connectorSummary(r, "mc_", r.model_connector_id),
    },
    lastRun:
      r.run_id === null
        ? null
        : {
            id: r.run_id,
            status: r.run_status!,
            syncRunType: r.run_type!,
            startedAt: isoOf(r.run_started_at),
            finishedAt: isoOf(r.run_finished_at),
            failedRows: r.run_failed_rows ?? 0,
            error: r.run_error,
            canceledBy: r.run_canceled_by,
            successfulRows: r.run_successful_rows ?? 0,
            approvedBy: r.run_approved_by,
            held: r.run_held ?? false,
          },
    lastEnded:
      r.ended_id === null
        ? null
        : {
            id: r.ended_id,
            status: r.ended_status!,
            failedRows: r.ended_failed_rows ?? 0,
            error: r.ended_error,
            canceledBy: r.ended_canceled_by,
            finishedAt: isoOf(r.ended_finished_at),
            successfulRows: r.ended_successful_rows ?? 0,
            approvedBy: r.ended_approved_by,
            held: r.ended_held ?? false,
          },
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

/**
 * A whole number written into the statement's text. The page size and a first page's offset are:
 * queryRows prepares the statement, and PostgreSQL plans a prepared statement once (generic plan)
 * only when that plan looks no worse than planning each call for its values; with LIMIT and OFFSET
 * as parameters it never did, and planning the list's joins was a third of its database time.
 * Sizes are 1..100, so the texts stay few; later pages keep the offset a parameter.
 */
function wholeNumber(n: number): Prisma.Sql {
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`Not a whole number: ${n}`);
  return Prisma.raw(String(n));
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
     WHERE ${where} ORDER BY ${order} LIMIT ${wholeNumber(page.take)} OFFSET ${page.skip === 0 ? wholeNumber(0) : page.skip}`;
  // One statement, one snapshot: the total and the page (a row of NULLs when the page is empty).
  const rows = await queryRows<Partial<SyncViewRow> & { total: number }>(
    Prisma.sql`
    SELECT c.total, p.* FROM (SELECT count(*)::int AS total FROM syncs s WHERE ${where}) c
      LEFT JOIN LATERAL (${syncViewSelect(pageQuery, true)}) p ON true
     ORDER BY p.ord`,
    { timestamps: "iso" },
  );
  return {
    rows: rows.filter((r) => r.id != null).map((r) => syncView(r as SyncViewRow)),
    total: rows[0]?.total ?? 0,
  };
}

export async function getSync(workspaceId: number, id: number, db: Tx = prisma()): Promise<SyncView> {
  const [row] = await db.$queryRaw<SyncViewRow[]>(
    syncViewSelect(Prisma.sql`SELECT * FROM syncs WHERE id = ${id} AND workspace_id = ${workspaceId} AND deleted_at IS NULL`),
  );
  if (!row) throw new NotFound(`Sync ${id} was not found.`);
  return syncView(row);
}

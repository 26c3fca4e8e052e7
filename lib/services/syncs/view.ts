// The sync resource as the API shows it: the sync with its source, destination, model (with its own
// connector) and latest run, read by one statement instead of an include per relation. The statement
// is built with Kysely from the schema's types (lib/db/kysely.ts): its rows are typed by the query,
// so a renamed column fails the build.
// Timestamps are ISO 8601 text, as the API shows them: the list reads them so from the database
// (selectRows' "iso" timestamps), sparing a Date and its formatting per value.
import "server-only";
import { sql, type Expression, type InferResult, type RawBuilder } from "kysely";
import { DEFAULT_SORT, type SortOrder } from "@/lib/validation/sort";
import { prisma, type IsoTimestamp } from "@/lib/db/client";
import { compiledByShape, selectRows, sqlBuilder, viaPrisma, type IsoRow } from "@/lib/db/kysely";
import { NotFound } from "@/lib/errors";
import type { Connector, Model, Prisma, Sync, SyncRunStatus, SyncRunType, SyncStatus } from "@/lib/generated/prisma/client";
import type { Page } from "@/lib/page";
import type { ListSyncsQuery } from "@/lib/validation/syncs";
import { ENDED_STATUSES } from "@/lib/sync-rules/run-outcome";
import { needsAttention } from "./attention";
import { orderKey, orderTerms, type OrderTerm } from "./list-order";

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

/** A timestamp of a view row: ISO text from listSyncs (selectRows' "iso"), a Date from getSync (Prisma). */
type Instant = Date | IsoTimestamp;

function isoOf(at: Instant): IsoTimestamp;
function isoOf(at: Instant | null): IsoTimestamp | null;
function isoOf(at: Instant | null): IsoTimestamp | null {
  return at === null || typeof at === "string" ? at : at.toISOString();
}

/**
 * An enum column read as text, its type still the enum's values: a plain string for both readers
 * (pg's for the list, Prisma's for getSync in a transaction), whatever each makes of an enum type.
 */
const asText = <T>(column: Expression<T>): RawBuilder<T> => sql<T>`${column}::text`;

/** A run whose stored plan broke its sync's limits (sync_runs.plan.exceeded not empty): it was held. */
const held = (plan: Expression<unknown>) =>
  sql<boolean>`CASE WHEN jsonb_typeof(${plan}->'exceeded') = 'array' THEN jsonb_array_length(${plan}->'exceeded') > 0 ELSE false END`;

/** Syncs rows (the table aliased s), before their conditions. */
const syncsFrom = () => sqlBuilder().selectFrom("syncs as s");

/**
 * The rows of `syncs` with `ord`, their place in `order`: it carries the page's order through the
 * view's joins (the view casts enums to text, so ordering the result by its columns again would sort
 * status alphabetically). getSync's one row has an empty order.
 */
const numbered = (syncs: ReturnType<typeof syncsFrom>, order: OrderTerm[]) =>
  syncs
    .selectAll("s")
    .select((eb) =>
      eb.fn
        .agg<bigint>("row_number")
        .over((ob) => order.reduce((o, [column, dir]) => o.orderBy(orderKey(column), dir), ob))
        .as("ord"),
    );


/**
 * Syncs of `page` (syncs rows with `ord`) with their source, destination, model (with its own
 * connector), latest run and latest ended general run, in one statement: Prisma's include would be a
 * query per relation, plus one for the latest runs.
 */
const syncViewQuery = (page: ReturnType<typeof numbered>) =>
  sqlBuilder()
    .selectFrom(page.as("s"))
    .innerJoin("connectors as src", "src.id", "s.source_id")
    .innerJoin("connectors as dst", "dst.id", "s.destination_id")
    .innerJoin("models as m", "m.id", "s.model_id")
    .innerJoin("connectors as mc", "mc.id", "m.connector_id")
    .leftJoinLateral(
      (eb) =>
        eb
          .selectFrom("sync_runs as sr")
          .select(["sr.id", "sr.started_at", "sr.finished_at", "sr.failed_rows", "sr.error", "sr.canceled_by", "sr.successful_rows", "sr.approved_by"])
          .select((eb) => [asText(eb.ref("sr.status")).as("status"), asText(eb.ref("sr.sync_run_type")).as("sync_run_type"), held(eb.ref("sr.plan")).as("held")])
          .whereRef("sr.sync_id", "=", "s.id")
          .orderBy("sr.created_at", "desc")
          .orderBy("sr.id", "desc")
          .limit(sql.lit(1))
          .as("r"),
      (join) => join.onTrue(),
    )
    .leftJoinLateral(
      (eb) =>
        eb
          .selectFrom("sync_runs as sr")
          .select(["sr.id", "sr.failed_rows", "sr.error", "sr.canceled_by", "sr.finished_at", "sr.successful_rows", "sr.approved_by"])
          .select((eb) => [asText(eb.ref("sr.status")).as("status"), held(eb.ref("sr.plan")).as("held")])
          .whereRef("sr.sync_id", "=", "s.id")
          .where("sr.sync_run_type", "=", sql.lit("general"))
          .where("sr.status", "in", ENDED_STATUSES.map((status) => sql.lit(status)))
          .orderBy("sr.created_at", "desc")
          .orderBy("sr.id", "desc")
          .limit(sql.lit(1))
          .as("e"),
      (join) => join.onTrue(),
    )
    .select(["s.ord", "s.id", "s.workspace_id", "s.source_id", "s.destination_id", "s.model_id", "s.name", "s.description", "s.configuration"])
    .select(["s.sync_interval", "s.cron_expression", "s.timezone", "s.stream_name", "s.cursor_field", "s.current_cursor_field"])
    .select(["s.detect_deletes", "s.live", "s.guard", "s.next_run_at", "s.deleted_at", "s.created_at", "s.updated_at"])
    .select((eb) => [
      asText(eb.ref("s.schedule_type")).as("schedule_type"),
      asText(eb.ref("s.sync_mode")).as("sync_mode"),
      asText(eb.ref("s.sync_interval_unit")).as("sync_interval_unit"),
      asText(eb.ref("s.write_mode")).as("write_mode"),
      asText(eb.ref("s.status")).as("status"),
      asText(eb.ref("src.connector_type")).as("src_connector_type"),
      asText(eb.ref("dst.connector_type")).as("dst_connector_type"),
      asText(eb.ref("mc.connector_type")).as("mc_connector_type"),
      asText(eb.ref("m.query_type")).as("model_query_type"),
    ])
    .select(["src.name as src_name", "src.description as src_description", "src.connector_name as src_connector_name"])
    .select(["src.workspace_id as src_workspace_id", "src.created_at as src_created_at", "src.updated_at as src_updated_at"])
    .select(["dst.name as dst_name", "dst.description as dst_description", "dst.connector_name as dst_connector_name"])
    .select(["dst.workspace_id as dst_workspace_id", "dst.created_at as dst_created_at", "dst.updated_at as dst_updated_at"])
    .select(["mc.name as mc_name", "mc.description as mc_description", "mc.connector_name as mc_connector_name"])
    .select(["mc.workspace_id as mc_workspace_id", "mc.created_at as mc_created_at", "mc.updated_at as mc_updated_at"])
    .select(["m.name as model_name", "m.description as model_description", "m.query as model_query", "m.configuration as model_configuration"])
    .select(["m.primary_key as model_primary_key", "m.connector_id as model_connector_id", "m.created_at as model_created_at", "m.updated_at as model_updated_at"])
    .select(["r.id as run_id", "r.status as run_status", "r.sync_run_type as run_type", "r.started_at as run_started_at", "r.finished_at as run_finished_at"])
    .select(["r.failed_rows as run_failed_rows", "r.error as run_error", "r.canceled_by as run_canceled_by"])
    .select(["r.successful_rows as run_successful_rows", "r.approved_by as run_approved_by", "r.held as run_held"])
    .select(["e.id as ended_id", "e.status as ended_status", "e.failed_rows as ended_failed_rows", "e.error as ended_error"])
    .select(["e.canceled_by as ended_canceled_by", "e.finished_at as ended_finished_at"])
    .select(["e.successful_rows as ended_successful_rows", "e.approved_by as ended_approved_by", "e.held as ended_held"]);

/** A row of the view, as getSync reads it (timestamps Date); the list reads its IsoRow. */
type ViewRow = InferResult<ReturnType<typeof syncViewQuery>>[number];

function syncView(r: ViewRow | IsoRow<ViewRow>): SyncView {
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
    source: {
      id: r.source_id,
      name: r.src_name,
      description: r.src_description,
      connectorName: r.src_connector_name,
      connectorType: r.src_connector_type,
      workspaceId: r.src_workspace_id,
      createdAt: isoOf(r.src_created_at),
      updatedAt: isoOf(r.src_updated_at),
    },
    destination: {
      id: r.destination_id,
      name: r.dst_name,
      description: r.dst_description,
      connectorName: r.dst_connector_name,
      connectorType: r.dst_connector_type,
      workspaceId: r.dst_workspace_id,
      createdAt: isoOf(r.dst_created_at),
      updatedAt: isoOf(r.dst_updated_at),
    },
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
      connector: {
        id: r.model_connector_id,
        name: r.mc_name,
        description: r.mc_description,
        connectorName: r.mc_connector_name,
        connectorType: r.mc_connector_type,
        workspaceId: r.mc_workspace_id,
        createdAt: isoOf(r.mc_created_at),
        updatedAt: isoOf(r.mc_updated_at),
      },
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

/**
 * A whole number written into the statement's text. The page size and a first page's offset are:
 * selectRows prepares the statement, and PostgreSQL plans a prepared statement once (generic plan)
 * only when that plan looks no worse than planning each call for its values; with LIMIT and OFFSET
 * as parameters it never did, and planning the list's joins was a third of its database time.
 * Sizes are 1..100, so the texts stay few; later pages keep the offset a parameter.
 */
function wholeNumber(n: number): RawBuilder<number> {
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`Not a whole number: ${n}`);
  return sql.lit(n);
}

/** What changes the list statement's text: the filters present, the order, the page size, a first page. */
interface ListShape {
  /** needs_attention: true keeps the syncs that need it, false the others, undefined both. */
  attention: boolean | undefined;
  status: boolean;
  model: boolean;
  source: boolean;
  destination: boolean;
  sort: SortOrder;
  take: number;
  firstPage: boolean;
}
interface ListValues {
  workspaceId: number;
  status: SyncStatus;
  modelId: number;
  sourceId: number;
  destinationId: number;
  skip: number;
}

/**
 * The total and a page in one statement, one snapshot (a row of NULLs when the page is empty).
 * Compiled once per shape: the list is a hot request, and building its query costs more than reading.
 */
const listQuery = compiledByShape(
  (shape: ListShape, at: ListValues) => {
    let listed = syncsFrom().where("s.workspace_id", "=", at.workspaceId).where("s.deleted_at", "is", null);
    if (shape.status) listed = listed.where("s.status", "=", at.status);
    if (shape.attention !== undefined) listed = listed.where(shape.attention ? needsAttention() : sql<boolean>`NOT ${needsAttention()}`);
    if (shape.model) listed = listed.where("s.model_id", "=", at.modelId);
    if (shape.source) listed = listed.where("s.source_id", "=", at.sourceId);
    if (shape.destination) listed = listed.where("s.destination_id", "=", at.destinationId);
    const order = orderTerms(shape.sort);
    const page = order
      .reduce((q, [column, dir]) => q.orderBy(orderKey(column), dir), numbered(listed, order))
      .limit(wholeNumber(shape.take))
      .offset(shape.firstPage ? wholeNumber(0) : at.skip);
    return sqlBuilder()
      .selectFrom(listed.select((eb) => eb.cast<number>(eb.fn.countAll(), "integer").as("total")).as("c"))
      .leftJoinLateral(syncViewQuery(page).as("p"), (join) => join.onTrue())
      .select("c.total")
      .selectAll("p")
      .orderBy("p.ord");
  },
  (shape) => JSON.stringify(shape),
);
type ListRow = IsoRow<InferResult<ReturnType<typeof listQuery>>[number]>;

/** A list row that carries a sync (the empty page's one row does not). */
const hasSync = (r: ListRow): r is ListRow & IsoRow<ViewRow> => r.id !== null;

export async function listSyncs(workspaceId: number, filter: ListSyncsQuery, page: Page) {
  const shape: ListShape = {
    attention: filter.needs_attention,
    status: filter.status !== undefined,
    model: filter.model_id !== undefined,
    source: filter.source_id !== undefined,
    destination: filter.destination_id !== undefined,
    sort: filter.sort ?? DEFAULT_SORT,
    take: page.take,
    firstPage: page.skip === 0,
  };
  const values: ListValues = {
    workspaceId,
    status: filter.status!,
    modelId: filter.model_id!,
    sourceId: filter.source_id!,
    destinationId: filter.destination_id!,
    skip: page.skip,
  };
  const rows = await selectRows(listQuery(shape, values), { timestamps: "iso" });
  return { rows: rows.filter(hasSync).map(syncView), total: rows[0]?.total ?? 0 };
}

export async function getSync(workspaceId: number, id: number, db: Tx = prisma()): Promise<SyncView> {
  const one = syncsFrom().where("s.id", "=", id).where("s.workspace_id", "=", workspaceId).where("s.deleted_at", "is", null);
  const [row] = await viaPrisma(db, syncViewQuery(numbered(one, [])));
  if (!row) throw new NotFound(`Sync ${id} was not found.`);
  return syncView(row);
}

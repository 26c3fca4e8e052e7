// The application database of a bench run: migrated, with fixtures built through Prisma exactly as
// the services store them (encrypted configurations, catalogs), and runs triggered through the
// engine's public API, then followed in sync_runs.
import { createHash } from "node:crypto";
import type { Catalog, Row, Stream } from "@/lib/connectors/types";
import { encryptJson } from "@/lib/crypto/encryption";
import { pgPool, prisma } from "@/lib/db/client";
import { migrateDatabase } from "@/lib/db/migrate";
import { triggerSync } from "@/lib/engine";
import type { Prisma } from "@/lib/generated/prisma/client";
import { pgConnectorConfig } from "@/tests/support/pg-connector";
import { CUSTOMER_COLUMNS } from "./pg";

export async function prepareAppDatabase(url: string): Promise<void> {
  process.env.DATABASE_URL = url;
  await migrateDatabase(url);
}

/** Local scratch databases take no TLS. */
export const pgConfig = (url: string): Row => pgConnectorConfig(url, { ssl_mode: "disable" });

export const CUSTOMER_MAPPING = CUSTOMER_COLUMNS.split(", ").map((c) => ({ from: c, to: c, mapping_type: "standard" }));

/** The JSON path's mapping (sync section and mapping micro-benchmark): a template and a static value. */
export const JSON_PATH_MAPPING = [
  ...CUSTOMER_MAPPING.filter((m) => m.to !== "email_address" && m.to !== "state"),
  { from: "{{ email_address | downcase }}", to: "email_address", mapping_type: "template" },
  { from: "CA", to: "state", mapping_type: "static" },
];

let counter = 0;

export async function createWorkspace(name: string): Promise<number> {
  const ws = await prisma().workspace.create({ data: { name, slug: `bench-${name.toLowerCase().replace(/\W+/g, "-")}-${Date.now()}` } });
  return ws.id;
}

export interface SyncFixture {
  syncId: number;
  destinationId: number;
}

/** The sync's source: a PostgreSQL database by URL, or any source connector with its configuration. */
type SourceOption = { sourceUrl: string; source?: never } | { source: { connectorName: string; config: Row }; sourceUrl?: never };

/** A source (PostgreSQL unless given), a destination with its catalog, a model and a manual incremental sync. */
export async function createSync(
  options: SourceOption & {
    workspaceId: number;
    query: string;
    destination: { connectorName: string; config: Row; catalog: Catalog };
    /** The sync's mapping; the customers' columns one to one by default. */
    configuration?: unknown;
  },
): Promise<SyncFixture> {
  const db = prisma();
  const n = ++counter;
  const { workspaceId } = options;
  const { connectorName, config } = options.source ?? { connectorName: "Postgresql", config: pgConfig(options.sourceUrl) };
  const source = await db.connector.create({
    data: { workspaceId, connectorType: "source", connectorName, name: `bench source ${n}`, configurationEncrypted: encryptJson(config) },
  });
  const destination = await db.connector.create({
    data: {
      workspaceId,
      connectorType: "destination",
      connectorName: options.destination.connectorName,
      name: `bench destination ${n}`,
      configurationEncrypted: encryptJson(options.destination.config),
    },
  });
  const catalogJson = JSON.stringify(options.destination.catalog);
  await db.catalog.create({
    data: {
      workspaceId,
      connectorId: destination.id,
      catalog: options.destination.catalog as unknown as Prisma.InputJsonValue,
      catalogHash: createHash("sha256").update(catalogJson).digest("hex"),
    },
  });
  const model = await db.model.create({
    data: { workspaceId, connectorId: source.id, name: `bench model ${n}`, query: options.query, primaryKey: "id" },
  });
  const sync = await db.sync.create({
    data: {
      workspaceId,
      sourceId: source.id,
      destinationId: destination.id,
      modelId: model.id,
      name: `bench sync ${n}`,
      configuration: (options.configuration ?? CUSTOMER_MAPPING) as Prisma.InputJsonValue,
      scheduleType: "manual",
      syncMode: "incremental",
      streamName: options.destination.catalog.streams[0].name,
    },
  });
  return { syncId: sync.id, destinationId: destination.id };
}

export function catalogOf(stream: Stream, rate: Partial<Omit<Catalog, "streams">> = {}): Catalog {
  return { streams: [stream], request_rate_limit: 0, request_rate_limit_unit: "minute", request_rate_concurrency: 4, ...rate };
}

export interface RunRow {
  id: number;
  status: string;
  error: string | null;
  duration_ms: number;
  queued_ms: number;
  total_query_rows: number;
  processed_rows: number;
  total_rows: number;
  skipped_rows: number;
  successful_rows: number;
  failed_rows: number;
  timings: { query?: number; diff?: number; load?: number; wait?: number; [k: string]: number | undefined };
}

const RUN_SQL = `SELECT id, status::text, error, total_query_rows, processed_rows, total_rows, skipped_rows, successful_rows, failed_rows, timings,
   COALESCE(EXTRACT(EPOCH FROM (finished_at - started_at)) * 1000, 0)::float8 AS duration_ms,
   COALESCE(EXTRACT(EPOCH FROM (started_at - created_at)) * 1000, 0)::float8 AS queued_ms
 FROM sync_runs WHERE id = $1`;

export async function readRun(runId: number): Promise<RunRow> {
  const { rows } = await pgPool().query<RunRow>(RUN_SQL, [runId]);
  return rows[0];
}

/**
 * Triggers a run through the engine's public API and polls it to its end. `onPoll` sees each
 * intermediate state (the RSS sampler uses it). Throws when the run does not succeed.
 */
export async function runSync(
  workspaceId: number,
  syncId: number,
  options: { timeoutMs?: number; pollMs?: number; onPoll?: (run: RunRow) => void } = {},
): Promise<RunRow & { wall_ms: number }> {
  const started = performance.now();
  const run = await triggerSync(workspaceId, syncId);
  const deadline = Date.now() + (options.timeoutMs ?? 3_600_000);
  for (;;) {
    const row = await readRun(run.id);
    options.onPoll?.(row);
    if (["success", "failed", "canceled"].includes(row.status)) {
      const wall_ms = performance.now() - started;
      if (row.status !== "success") {
        const { rows: errors } = await pgPool().query<{ error: string; n: number }>(
          "SELECT error, count(*)::int AS n FROM sync_record_rows WHERE sync_run_id = $1 AND status = 'failed' GROUP BY error ORDER BY n DESC LIMIT 3",
          [run.id],
        );
        const sample = errors.map((e) => `\n  ${e.n} × ${e.error}`).join("");
        throw new Error(`Run ${run.id} of sync ${syncId} ended ${row.status}: ${row.error ?? ""}${sample}`);
      }
      return { ...row, wall_ms };
    }
    if (Date.now() > deadline) throw new Error(`Run ${run.id} of sync ${syncId} did not finish in time (status ${row.status}).`);
    await new Promise((r) => setTimeout(r, options.pollMs ?? 100));
  }
}

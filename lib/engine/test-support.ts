// Fixtures for the engine's integration tests (not used by production code): a workspace with a
// PostgreSQL source, a destination and a sync, real rows in scratch databases, and a worker process.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { Client } from "pg";
import { exactJson } from "@/lib/connectors/shared/values";
import type { Catalog, Row, Stream } from "@/lib/connectors/types";
import { secrets } from "@/lib/settings/secrets";
import { encryptJson } from "@/lib/crypto/encryption";
import { pgPool, prisma } from "@/lib/db/client";
import type { DeclaredViews } from "@/lib/db/declared-relations";
import { sqlBuilder, viaClient } from "@/lib/db/kysely";
import { toJsonColumn } from "@/lib/db/json";
import type { Prisma, SyncRun } from "@/lib/generated/prisma/client";
import { pgConnectorConfig } from "@/tests/support/pg-connector";
import { allRecords } from "@/tests/support/record-blocks";
import type { SyncRecord } from "@/lib/engine/records/types";

/**
 * The secrets a spawned worker needs to read what this test process encrypted: this process's own
 * (from the environment, or generated once under DATA_DIR).
 */
function secretsEnv(): Record<string, string> {
  const { encryptionKey, jwtSecret } = secrets();
  return { ENCRYPTION_KEY: encryptionKey, JWT_SECRET: jwtSecret };
}

export { pgConnectorConfig };

export async function sql<T extends Record<string, unknown> = Record<string, unknown>>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** people(id, name, email, score, updated_at) with `count` rows; updated_at grows with id. */
export async function createPeople(url: string, count: number, options: { constraints?: string } = {}): Promise<void> {
  await sql(
    url,
    `CREATE TABLE people (id integer PRIMARY KEY, name text NOT NULL, email text, score integer,
       updated_at timestamptz NOT NULL DEFAULT now()${options.constraints ? `, ${options.constraints}` : ""})`,
  );
  if (count > 0) {
    await sql(
      url,
      `INSERT INTO people (id, name, email, score, updated_at)
       SELECT g, 'Person ' || g, 'person' || g || '@example.com', g % 100, timestamptz '2026-01-01' + g * interval '1 second'
       FROM generate_series(1, $1) g`,
      [count],
    );
  }
}

export const PEOPLE_MAPPING = [
  { from: "id", to: "id", mapping_type: "standard" },
  { from: "name", to: "name", mapping_type: "standard" },
  { from: "email", to: "email", mapping_type: "standard" },
  { from: "score", to: "score", mapping_type: "standard" },
  { from: "updated_at", to: "updated_at", mapping_type: "standard" },
];

export function tableStream(name: string, overrides: Partial<Stream> = {}): Stream {
  return {
    name,
    url: `public.${name}`,
    json_schema: { type: "object" },
    batch_support: true,
    batch_size: 1000,
    request_method: "POST",
    primary_key: ["id"],
    ...overrides,
  };
}

export interface Fixture {
  workspaceId: number;
  sourceId: number;
  destinationId: number;
  modelId: number;
  syncId: number;
}

let counter = 0;

export async function createFixture(options: {
  sourceUrl: string;
  /** Another source than the PostgreSQL database at sourceUrl. */
  source?: { connectorName: string; config: Row };
  destination: { connectorName: string; config: Row; catalog: Catalog };
  query?: string;
  primaryKey?: string;
  sync?: Partial<Prisma.SyncUncheckedCreateInput>;
  workspaceId?: number;
  destinationId?: number;
}): Promise<Fixture> {
  const db = prisma();
  const n = ++counter;
  const workspaceId =
    options.workspaceId ?? (await db.workspace.create({ data: { name: `Engine ${n}`, slug: `engine-${n}-${Date.now()}` } })).id;
  const source = await db.connector.create({
    data: {
      workspaceId,
      connectorType: "source",
      connectorName: options.source?.connectorName ?? "Postgresql",
      name: `source ${n}`,
      configurationEncrypted: encryptJson(options.source?.config ?? pgConnectorConfig(options.sourceUrl)),
    },
  });
  let destinationId = options.destinationId;
  if (!destinationId) {
    const destination = await db.connector.create({
      data: {
        workspaceId,
        connectorType: "destination",
        connectorName: options.destination.connectorName,
        name: `destination ${n}`,
        configurationEncrypted: encryptJson(options.destination.config),
      },
    });
    await db.catalog.create({
      data: {
        workspaceId,
        connectorId: destination.id,
        catalog: toJsonColumn(options.destination.catalog),
        catalogHash: `hash-${n}`,
      },
    });
    destinationId = destination.id;
  }
  const model = await db.model.create({
    data: {
      workspaceId,
      connectorId: source.id,
      name: `model ${n}`,
      query: options.query ?? "SELECT id, name, email, score, updated_at FROM people",
      primaryKey: options.primaryKey ?? "id",
    },
  });
  const sync = await db.sync.create({
    data: {
      workspaceId,
      sourceId: source.id,
      destinationId,
      modelId: model.id,
      name: `sync ${n}`,
      configuration: PEOPLE_MAPPING,
      scheduleType: "manual",
      syncMode: "incremental",
      streamName: options.destination.catalog.streams[0].name,
      ...options.sync,
    },
  });
  return { workspaceId, sourceId: source.id, destinationId, modelId: model.id, syncId: sync.id };
}

export function catalogOf(stream: Stream, rate: Partial<Omit<Catalog, "streams">> = {}): Catalog {
  return { streams: [stream], request_rate_limit: 0, request_rate_limit_unit: "minute", request_rate_concurrency: 4, ...rate };
}

/** The counters two runs of the same rows compare by. */
export function runCounters(r: SyncRun) {
  return { totalQueryRows: r.totalQueryRows, totalRows: r.totalRows, successfulRows: r.successfulRows, failedRows: r.failedRows, skippedRows: r.skippedRows };
}

/** Records by key, each row as the API writes it (a number inside JSON is held in two forms that write alike). */
export function recordsByKey(records: readonly SyncRecord[]) {
  return new Map(records.map((r) => [r.primaryKey, { record: exactJson(r.record), action: r.action, status: r.status }]));
}

/** The read path a run took (pass-through/plan.ts), from the columns its records were stored with. */
export type ReadPath = "pass-through" | "mapped lines" | "rows";

export function readPath(run: { recordColumns: unknown }): ReadPath {
  const columns = run.recordColumns as { mapped?: boolean } | null;
  return columns === null ? "rows" : columns.mapped ? "mapped lines" : "pass-through";
}

/** A run's records as the API reads them: a record kept as COPY text (pass-through) is decoded. */
export async function runRecords(runId: number): Promise<SyncRecord[]> {
  const run = await prisma().syncRun.findUniqueOrThrow({ where: { id: runId }, select: { recordColumns: true } });
  return allRecords(runId, run.recordColumns);
}

/** The sync's change-tracking states (of `key`), sync_states rows and state blocks alike. */
export async function stateCount(syncId: number, key?: string): Promise<number> {
  let query = sqlBuilder()
    .withTables<DeclaredViews>()
    .selectFrom("sync_state_entries")
    .select((eb) => eb.cast<number>(eb.fn.countAll(), "int4").as("n"))
    .where("sync_id", "=", syncId);
  if (key !== undefined) query = query.where("primary_key", "=", key);
  const [{ n }] = await viaClient(pgPool(), query);
  return n;
}

/** The sync's states as rows, by key (sync_state_entries). */
export async function stateRows(syncId: number): Promise<{ primaryKey: string; fingerprint: string; lastStatus: string; lastRunId: number }[]> {
  return prisma().$queryRawUnsafe(
    `SELECT primary_key AS "primaryKey", fingerprint, last_status::text AS "lastStatus", last_run_id AS "lastRunId"
       FROM sync_state_entries WHERE sync_id = $1 ORDER BY primary_key`,
    syncId,
  );
}

export async function reloadRun(runId: number): Promise<SyncRun> {
  return prisma().syncRun.findUniqueOrThrow({ where: { id: runId } });
}

/**
 * Polls until `check` returns a value (not undefined) or the time is up. `what` names it in the
 * error; a function is called at the time-out, so what it reports (a worker's log) is as of then.
 */
export async function waitFor<T>(check: () => Promise<T | undefined>, timeoutMs: number, what: string | (() => string | Promise<string>)): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${typeof what === "string" ? what : await what()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A real worker process (scripts/worker.ts through tsx) on the given database. */
export function spawnWorker(databaseUrl: string, env: Record<string, string> = {}): ChildProcess & { output: () => string } {
  const root = path.resolve(__dirname, "../..");
  // `node --import tsx` rather than the tsx CLI: the CLI runs the script in a second process, and a
  // SIGKILL sent to the CLI would leave that one running.
  const child = spawn(process.execPath, ["--import", "tsx", path.join(root, "scripts/worker.ts")], {
    cwd: root,
    env: {
      ...process.env,
      ...secretsEnv(),
      DATABASE_URL: databaseUrl,
      WORKER_CONCURRENCY: "1",
      ENGINE_REAPER_INTERVAL_MS: "500",
      ENGINE_STATUS_POLL_MS: "300",
      LOG_LEVEL: "warn",
      NODE_ENV: "test",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (d: Buffer) => (output = (output + d.toString()).slice(-20_000)));
  child.stderr?.on("data", (d: Buffer) => (output = (output + d.toString()).slice(-20_000)));
  return Object.assign(child, { output: () => output });
}

export async function stopWorker(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill(signal);
  await exited;
}

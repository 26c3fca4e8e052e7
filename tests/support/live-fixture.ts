// The live-sync fixture the live tests share (beside logical-postgres.ts, which gives the source
// server; used by lib/engine/live/keeper.test.ts, live-flood.test.ts, live-guard.test.ts,
// lib/services/config-as-code/live.test.ts and tests/ops/live-worker-kill.test.ts): a source table `(id integer PRIMARY KEY, name text NOT NULL)` on the private
// wal_level=logical PostgreSQL, its destination table on another database, and a workspace with a
// PostgreSQL source, a PostgreSQL destination, the model `SELECT id, name FROM <table>` and a live,
// incremental, mirror-mode sync mapping id and name.
import type { Prisma } from "@/lib/generated/prisma/client";
import { catalogOf, createFixture, pgConnectorConfig, sql, tableStream, type Fixture } from "@/lib/engine/test-support";

/** The two columns every live fixture table has. */
export const LIVE_TABLE_COLUMNS = "id integer PRIMARY KEY, name text NOT NULL";

/** A table of the fixture's shape; `rows`: ids 1..rows named "<label> <id>" (label: the table's name unless given). */
export async function createLiveTable(url: string, table: string, options: { rows?: number; label?: string } = {}): Promise<void> {
  await sql(url, `CREATE TABLE ${table} (${LIVE_TABLE_COLUMNS})`);
  if (options.rows) {
    await sql(url, `INSERT INTO ${table} SELECT g, $1 || ' ' || g FROM generate_series(1, ${Math.floor(options.rows)}) g`, [options.label ?? table]);
  }
}

export interface LiveSyncOptions {
  /** The source database (the logical server's `url`) and its table. */
  sourceUrl: string;
  sourceTable: string;
  /** The destination database and its table (created unless `createDestinationTable` is false). */
  destinationUrl: string;
  destinationTable: string;
  createDestinationTable?: boolean;
  /** More of the sync (guard, write mode, …): wins over the fixture's. */
  sync?: Partial<Prisma.SyncUncheckedCreateInput>;
}

/** The workspace, connectors, model and live sync; the destination table too, by default. */
export async function createLiveSync(options: LiveSyncOptions): Promise<Fixture> {
  if (options.createDestinationTable !== false) await sql(options.destinationUrl, `CREATE TABLE ${options.destinationTable} (${LIVE_TABLE_COLUMNS})`);
  return createFixture({
    sourceUrl: options.sourceUrl,
    destination: { connectorName: "Postgresql", config: pgConnectorConfig(options.destinationUrl), catalog: catalogOf(tableStream(options.destinationTable)) },
    query: `SELECT id, name FROM ${options.sourceTable}`,
    sync: {
      configuration: [
        { from: "id", to: "id", mapping_type: "standard" },
        { from: "name", to: "name", mapping_type: "standard" },
      ],
      live: true,
      syncMode: "incremental",
      writeMode: "mirror",
      ...options.sync,
    },
  });
}

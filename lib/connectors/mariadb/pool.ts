// The MariaDB destination's connection pools (one per connection settings), shared by its row
// writes and its COPY text upserts.
import type { Pool, PoolConnection } from "mysql2/promise";
import type { Row } from "../types";
import { ConnectorError } from "../shared/errors";
import { PoolCache } from "../shared/pool-cache";
import type { TableInfo } from "../shared/sql-catalog";
import { assertHostAllowed } from "@/lib/net/policy";
import { connectionOptions, listColumns, mariaSettings, mysqlPromise, SESSION_SETUP, settingsKey, type MariaSettings } from "./connection";

export interface PoolEntry {
  pool: Pool;
  settings: MariaSettings;
  tables: Map<string, TableInfo> | undefined;
  /** The server takes LOAD DATA LOCAL (text upserts), asked once. */
  localInfile?: boolean;
}

export const pools = new PoolCache<PoolEntry>();

export function poolFor(config: Row): Promise<PoolEntry> {
  const settings = mariaSettings(config);
  return pools.get(settingsKey(settings), async () => {
    await assertHostAllowed(settings.host, undefined, { database: settings.database });
    const pool = mysqlPromise.createPool({ ...connectionOptions(settings), connectionLimit: 4, idleTimeout: 30_000 });
    // The core (callback) connection is handed over here, before any query of ours runs on it.
    // A failure here resurfaces on the connection's first real query, so the callback only has to
    // keep an unhandled 'error' event from being thrown.
    pool.pool.on("connection", (conn) => {
      conn.query(`${SESSION_SETUP}, max_statement_time = ${Number(settings.queryTimeoutMs / 1000)}`, () => undefined);
    });
    return { pool, settings, tables: undefined };
  });
}

export async function tableInfo(entry: PoolEntry, conn: PoolConnection, name: string): Promise<TableInfo> {
  if (!entry.tables?.has(name)) entry.tables = await listColumns(conn, entry.settings.database);
  const table = entry.tables.get(name);
  if (!table) throw new ConnectorError(`Table "${entry.settings.database}"."${name}" does not exist.`);
  return table;
}


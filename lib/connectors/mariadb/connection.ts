// MariaDB connection handling shared by the source and the destination (mysql2).
import { createHash } from "node:crypto";
import { Socket } from "node:net";
import mysql from "mysql2";
import mysqlPromise from "mysql2/promise";
import type { ReadOptions, Row } from "../types";
import { numberField, optionalString, secondsToMs, stringField } from "../shared/config";
import { ConnectorError, errorMessage, withDescribedErrors } from "../shared/errors";
import { modelSelect, subquery, type ColumnInfo } from "../shared/sql";
import type { TableInfo } from "../shared/sql-catalog";
import { connectGuarded } from "@/lib/net/policy";
import { parseJsonExact } from "../shared/values";

export interface MariaSettings {
  host: string;
  port: number;
  user: string;
  password?: string;
  database: string;
  sslMode: string;
  connectTimeoutMs: number;
  queryTimeoutMs: number;
}

export function mariaSettings(config: Row): MariaSettings {
  return {
    host: stringField(config, "host"),
    port: numberField(config, "port", 3306),
    user: stringField(config, "username"),
    password: optionalString(config, "password"),
    database: stringField(config, "database"),
    sslMode: stringField(config, "ssl_mode", "disable"),
    connectTimeoutMs: secondsToMs(config, "connect_timeout", 10),
    queryTimeoutMs: secondsToMs(config, "query_timeout", 60),
  };
}

export function trySettings(config: Row): MariaSettings | undefined {
  try {
    return mariaSettings(config);
  } catch {
    return undefined;
  }
}

/**
 * TIMESTAMP is stored in UTC and the session runs in UTC, so it gets a Z; DATETIME has no zone.
 * BIGINT arrives as a number when exact (|n| ≤ 2^53 − 1), else as its digits (supportBigNumbers
 * without bigNumberStrings); DECIMAL as its exact string; JSON with every number exact; like the
 * PostgreSQL source (docs/connectors.md, "Values").
 */
const typeCast: mysql.TypeCast = (field, next) => {
  if (field.type === "TIMESTAMP" || field.type === "DATETIME") {
    const value = field.string();
    if (value === null) return null;
    return field.type === "TIMESTAMP" ? `${value.replace(" ", "T")}Z` : value.replace(" ", "T");
  }
  if (field.type === "DATE") return field.string();
  // mysql2 would JSON.parse it, bending big numbers: the value model keeps them (shared/values.ts).
  // MariaDB's JSON is LONGTEXT, known by its extended metadata; MySQL's is a type of its own.
  if (field.type === "JSON" || (field as { extendedFormat?: string }).extendedFormat === "json") {
    const text = field.string("utf8");
    return text === null ? null : parseJsonExact(text);
  }
  return next();
};

export function connectionOptions(s: MariaSettings): mysql.ConnectionOptions {
  return {
    // mysql2 uses the socket we hand it: connected through the outbound guard, so it reaches exactly
    // the address that was checked; `host` stays the name, for TLS (SNI, certificate). No-delay and
    // keep-alive are what mysql2 sets on sockets it opens itself.
    stream: () => connectGuarded(new Socket(), { host: s.host, port: s.port, database: s.database }).setNoDelay(true).setKeepAlive(true),
    host: s.host,
    port: s.port,
    user: s.user,
    password: s.password ?? "",
    database: s.database,
    connectTimeout: s.connectTimeoutMs,
    supportBigNumbers: true,
    typeCast,
    timezone: "Z",
    ...(s.sslMode === "disable" ? {} : { ssl: { rejectUnauthorized: s.sslMode === "verify-full" } }),
  };
}

/** Session settings every connection gets: UTC, and strict mode so bad values fail instead of being coerced. */
export const SESSION_SETUP =
  "SET SESSION time_zone = '+00:00', sql_mode = CONCAT_WS(',', NULLIF(@@sql_mode, ''), 'STRICT_ALL_TABLES')";

export async function connectPromise(s: MariaSettings): Promise<mysqlPromise.Connection> {
  const conn = await mysqlPromise.createConnection(connectionOptions(s));
  conn.on("error", () => undefined);
  try {
    await conn.query({ sql: SESSION_SETUP, timeout: s.queryTimeoutMs });
  } catch (err) {
    conn.destroy();
    throw err;
  }
  return conn;
}

/** The callback API, needed for query().stream(). */
export async function connectStreaming(s: MariaSettings, overrides: Partial<mysql.ConnectionOptions> = {}): Promise<mysql.Connection> {
  const conn = mysql.createConnection({ ...connectionOptions(s), ...overrides });
  conn.on("error", () => undefined);
  await new Promise<void>((resolve, reject) => conn.query({ sql: SESSION_SETUP, timeout: s.queryTimeoutMs }, (err) => (err ? reject(err) : resolve())));
  return conn;
}

export async function withConnection<T>(config: Row, fn: (conn: mysqlPromise.Connection, s: MariaSettings) => Promise<T>): Promise<T> {
  const s = mariaSettings(config);
  const conn = await connectPromise(s);
  try {
    return await fn(conn, s);
  } finally {
    await conn.end().catch(() => conn.destroy());
  }
}

export function quoteIdent(name: string): string {
  if (name.includes("\u0000")) throw new ConnectorError("Identifiers cannot contain NUL characters.");
  return `\`${name.replace(/`/g, "``")}\``;
}

const SENTENCES: Record<string, (s: MariaSettings, message: string) => string> = {
  ER_ACCESS_DENIED_ERROR: (s) => `Access denied for user "${s.user}". Check the username and password.`,
  ER_DBACCESS_DENIED_ERROR: (s) => `User "${s.user}" may not use database "${s.database}".`,
  ER_BAD_DB_ERROR: (s) => `Database "${s.database}" does not exist on ${s.host}:${s.port}.`,
  ER_CON_COUNT_ERROR: () => "The server has too many connections open; try again later.",
  ER_STATEMENT_TIMEOUT: (s) => `The query was stopped after the ${Math.round(s.queryTimeoutMs / 1000)} s statement timeout.`,
  ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION: () => "The query tried to change data; previews only run read-only queries.",
  PROTOCOL_SEQUENCE_TIMEOUT: (s) => `The query did not answer within ${Math.round(s.queryTimeoutMs / 1000)} s.`,
  ECONNREFUSED: (s) =>
    `Could not connect to ${s.host}:${s.port}: connection refused. Check the host and port, and that MariaDB accepts TCP connections.`,
  ENOTFOUND: (s) => `Could not resolve the host name "${s.host}". Check the host.`,
  EAI_AGAIN: (s) => `Could not resolve the host name "${s.host}". Check the host.`,
  ETIMEDOUT: (s) => `Timed out after ${Math.round(s.connectTimeoutMs / 1000)} s connecting to ${s.host}:${s.port}. Check the host, port and firewall.`,
  EHOSTUNREACH: (s) => `Could not reach ${s.host}:${s.port}. Check the host, port and firewall.`,
};

export function describeMariaError(err: unknown, s?: MariaSettings): string {
  if (err instanceof ConnectorError) return err.message;
  const e = err as { code?: string; errno?: number };
  const message = errorMessage(err);
  if (e.code && s && SENTENCES[e.code]) return SENTENCES[e.code](s, message);
  // MariaDB's max_statement_time error (1969) has no name in mysql2's table.
  if (e.errno === 1969 && s) return SENTENCES.ER_STATEMENT_TIMEOUT(s, message);
  return message;
}

export function described<T>(config: Row, fn: () => Promise<T>): Promise<T> {
  return withDescribedErrors(fn, (err) => describeMariaError(err, trySettings(config)));
}

export async function listColumns(conn: mysqlPromise.Connection | mysqlPromise.PoolConnection, database: string): Promise<Map<string, TableInfo>> {
  const [rows] = await conn.query<mysqlPromise.RowDataPacket[]>(
    `SELECT TABLE_NAME AS table_name, COLUMN_NAME AS column_name, COLUMN_TYPE AS column_type, IS_NULLABLE AS is_nullable,
            (COLUMN_DEFAULT IS NOT NULL OR EXTRA LIKE '%auto_increment%' OR EXTRA LIKE '%GENERATED%') AS has_default,
            COLUMN_KEY AS column_key
       FROM information_schema.COLUMNS
      WHERE TABLE_SCHEMA = ?
      ORDER BY TABLE_NAME, ORDINAL_POSITION`,
    [database],
  );
  const [keys] = await conn.query<mysqlPromise.RowDataPacket[]>(
    `SELECT TABLE_NAME AS table_name, COLUMN_NAME AS column_name
       FROM information_schema.KEY_COLUMN_USAGE
      WHERE TABLE_SCHEMA = ? AND CONSTRAINT_NAME = 'PRIMARY'
      ORDER BY TABLE_NAME, ORDINAL_POSITION`,
    [database],
  );
  const tables = new Map<string, TableInfo>();
  for (const r of rows) {
    const table = tables.get(r.table_name) ?? { name: r.table_name as string, columns: [] as ColumnInfo[], primaryKey: [] as string[] };
    // MariaDB reports a nullable column without default as COLUMN_DEFAULT 'NULL' (a string); both mean "may be omitted".
    table.columns.push({ name: r.column_name, type: r.column_type, nullable: r.is_nullable === "YES", hasDefault: Number(r.has_default) === 1 });
    tables.set(r.table_name, table);
  }
  for (const k of keys) tables.get(k.table_name)?.primaryKey.push(k.column_name);
  return tables;
}

export function incrementalQuery(options: ReadOptions): { sql: string; values: unknown[] } {
  const inner = modelSelect(options.query, "mariadb");
  // Wrapped even without a cursor: only a SELECT parses as a derived table.
  if (!options.cursorField) return { sql: `SELECT * FROM ${subquery(inner)} AS subquery`, values: [] };
  const cursor = quoteIdent(options.cursorField);
  const hasValue = options.cursorValue !== undefined && options.cursorValue !== null;
  return {
    sql: `SELECT * FROM ${subquery(inner)} AS subquery${hasValue ? ` WHERE ${cursor} >= ?` : ""} ORDER BY ${cursor}`,
    values: hasValue ? [options.cursorValue] : [],
  };
}

export function settingsKey(s: MariaSettings): string {
  return createHash("sha256")
    .update(JSON.stringify([s.host, s.port, s.database, s.user, s.password ?? "", s.sslMode]))
    .digest("hex");
}

export { mysql, mysqlPromise };

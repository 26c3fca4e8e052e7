// PostgreSQL connection handling shared by the source and the destination: configuration, type
// parsing into the value model (values.ts), error sentences, pools and table metadata.
import { createHash } from "node:crypto";
import { Socket } from "node:net";
import pg from "pg";
import type { Row } from "../types";
import { numberField, objectField, optionalString, secondsToMs, stringField } from "../shared/config";
import { ConnectorError, errorMessage, withDescribedErrors } from "../shared/errors";
import type { ColumnInfo } from "../shared/sql";
import type { TableInfo } from "../shared/sql-catalog";
import { connectGuarded } from "@/lib/net/policy";
import { valueTypes } from "./values";

export interface PgSettings {
  host: string;
  port: number;
  database: string;
  schema: string;
  user: string;
  password?: string;
  sslMode: string;
  connectTimeoutMs: number;
  queryTimeoutMs: number;
}

export function pgSettings(config: Row): PgSettings {
  const credentials = objectField(config, "credentials");
  return {
    host: stringField(config, "host"),
    port: numberField(config, "port", 5432),
    database: stringField(config, "database"),
    schema: stringField(config, "schema", "public"),
    user: stringField(credentials, "username"),
    password: optionalString(credentials, "password"),
    sslMode: stringField(config, "ssl_mode", "disable"),
    connectTimeoutMs: secondsToMs(config, "connect_timeout", 10),
    queryTimeoutMs: secondsToMs(config, "query_timeout", 60),
  };
}

function sslOption(mode: string): pg.ClientConfig["ssl"] {
  switch (mode) {
    case "require":
      return { rejectUnauthorized: false };
    case "verify-ca":
      // Trust chain only: the certificate need not name the host.
      return { rejectUnauthorized: true, checkServerIdentity: () => undefined };
    case "verify-full":
      return { rejectUnauthorized: true };
    default:
      return false;
  }
}

export { int8Value, timestamptzToIso } from "./values";

/**
 * pg opens its own socket; this one routes the connect through the outbound guard, so pg connects
 * to exactly the address that was checked while keeping the host name for TLS (SNI, certificate).
 */
function guardedSocket(database: string): Socket {
  const socket = new Socket();
  // pg calls connect(port, host), or connect(path) for a Unix socket directory.
  socket.connect = ((portOrPath: number | string, host?: string) =>
    connectGuarded(
      socket,
      host === undefined ? { path: String(portOrPath), database } : { host, port: Number(portOrPath), database },
    )) as Socket["connect"];
  return socket;
}

export function clientConfig(s: PgSettings, options: { clientSideTimeout?: boolean } = {}): pg.ClientConfig {
  return {
    stream: () => guardedSocket(s.database),
    host: s.host,
    port: s.port,
    database: s.database,
    user: s.user,
    password: s.password ?? "",
    ssl: sslOption(s.sslMode),
    connectionTimeoutMillis: s.connectTimeoutMs,
    statement_timeout: s.queryTimeoutMs,
    // pg's client-side query timeout breaks cursors (it expects a callback), so cursor readers opt out.
    ...(options.clientSideTimeout === false ? {} : { query_timeout: s.queryTimeoutMs + 5000 }),
    application_name: "datasync",
    types: valueTypes,
  };
}

/** The value model's parsers (values.ts), under the name the readers know them by. */
export const jsonSafeTypes = valueTypes;

const asText = (value: string) => value;

/** Every column as the server's text: fingerprinted reads parse a row only when it is needed. */
export const rawTextTypes = { getTypeParser: () => asText } as unknown as pg.CustomTypesConfig;

/** Opens a dedicated client (sources: one per operation); its socket goes through the outbound guard. */
export async function connect(s: PgSettings, options: { clientSideTimeout?: boolean } = {}): Promise<pg.Client> {
  const client = new pg.Client(clientConfig(s, options));
  // An idle client whose server goes away emits 'error'; without a listener that crashes the process.
  client.on("error", () => undefined);
  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => undefined);
    throw err;
  }
  return client;
}

/**
 * Type names of result columns' type oids (format_type, no modifiers). The oids are integers the
 * server gave us, listed inline: Redshift, which shares this source's preview, has no array parameters.
 */
export async function typeNames(client: pg.Client, oids: number[]): Promise<Map<number, string>> {
  const listed = oids.filter((oid) => Number.isSafeInteger(oid) && oid >= 0);
  if (listed.length === 0) return new Map();
  const { rows } = await client.query<{ oid: number; name: string }>(
    `SELECT t.oid::int AS oid, format_type(t.oid, NULL) AS name FROM pg_type t WHERE t.oid IN (${listed.join(", ")})`,
  );
  return new Map(rows.map((r) => [r.oid, r.name]));
}

export async function withClient<T>(config: Row, fn: (client: pg.Client, s: PgSettings) => Promise<T>): Promise<T> {
  const s = pgSettings(config);
  const client = await connect(s);
  try {
    return await fn(client, s);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** `"a""b"`: the only quoting PostgreSQL needs for an identifier. */
export function quoteIdent(name: string): string {
  if (name.includes("\u0000")) throw new ConnectorError("Identifiers cannot contain NUL characters.");
  return `"${name.replace(/"/g, '""')}"`;
}

const SENTENCES: Record<string, (s: PgSettings, message: string) => string> = {
  "28P01": (s) => `Password authentication failed for user "${s.user}". Check the username and password.`,
  "28000": (s, m) => `The server refused user "${s.user}": ${m}.`,
  "3D000": (s) => `Database "${s.database}" does not exist on ${s.host}:${s.port}.`,
  "3F000": (s) => `Schema "${s.schema}" does not exist in database "${s.database}".`,
  "42501": (_s, m) => `Permission denied: ${m}.`,
  "53300": () => "The server has too many connections open; try again later.",
  "57P03": () => "The server is starting up or shutting down; try again later.",
  "57014": (s) => `The query was cancelled after the ${Math.round(s.queryTimeoutMs / 1000)} s statement timeout.`,
  "25006": () => "The query tried to change data; previews only run read-only queries.",
};

/**
 * A sentence for any connection or query error, naming the host but never the password. `product`
 * names the server in the sentences that tell what to check (Redshift shares them).
 */
export function describePgError(err: unknown, s?: PgSettings, product = "PostgreSQL"): string {
  const e = err as { code?: string; message?: string };
  const message = errorMessage(err);
  const where = s ? `${s.host}:${s.port}` : "the server";
  if (err instanceof ConnectorError) return message;
  if (e.code && s && SENTENCES[e.code]) return SENTENCES[e.code](s, message);
  switch (e.code) {
    case "ECONNREFUSED":
      return `Could not connect to ${where}: connection refused. Check the host and port, and that ${product} accepts TCP connections.`;
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `Could not resolve the host name "${s?.host ?? ""}". Check the host.`;
    case "ETIMEDOUT":
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return `Could not reach ${where} (${e.code}). Check the host, port and firewall.`;
  }
  if (/timeout/i.test(message) && /connect/i.test(message)) {
    return `Timed out after ${Math.round((s?.connectTimeoutMs ?? 0) / 1000)} s connecting to ${where}. Check the host, port and firewall.`;
  }
  if (/Query read timeout/i.test(message)) return "The query did not answer within the query timeout.";
  if (/does not support SSL/i.test(message)) return `${where} does not accept SSL connections; set ssl_mode to disable.`;
  if (/self[- ]signed|certificate/i.test(message)) return `The server's SSL certificate was rejected: ${message}.`;
  return e.code && /^[0-9A-Z]{5}$/.test(e.code) ? `${message} (SQLSTATE ${e.code})` : message;
}

export async function listColumns(client: pg.Client | pg.PoolClient, schema: string): Promise<Map<string, TableInfo>> {
  const { rows } = await client.query<{
    table_name: string;
    column_name: string;
    data_type: string;
    not_null: boolean;
    has_default: boolean;
    pk_position: number | null;
  }>(
    `SELECT c.relname AS table_name, a.attname AS column_name,
            format_type(a.atttypid, a.atttypmod) AS data_type,
            a.attnotnull AS not_null,
            (a.atthasdef OR a.attidentity <> '' OR a.attgenerated <> '') AS has_default,
            array_position(pk.conkey, a.attnum) AS pk_position
       FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace
       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
       LEFT JOIN pg_constraint pk ON pk.conrelid = c.oid AND pk.contype = 'p'
      WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
      ORDER BY c.relname, a.attnum`,
    [schema],
  );
  const tables = new Map<string, TableInfo>();
  const keyParts = new Map<string, { name: string; position: number }[]>();
  for (const r of rows) {
    const table = tables.get(r.table_name) ?? { name: r.table_name, columns: [] as ColumnInfo[], primaryKey: [] as string[] };
    table.columns.push({ name: r.column_name, type: r.data_type, nullable: !r.not_null, hasDefault: r.has_default });
    if (r.pk_position !== null) keyParts.set(r.table_name, [...(keyParts.get(r.table_name) ?? []), { name: r.column_name, position: r.pk_position }]);
    tables.set(r.table_name, table);
  }
  // The key's column order is the constraint's, not the table's.
  for (const [name, parts] of keyParts) tables.get(name)!.primaryKey = parts.sort((a, b) => a.position - b.position).map((p) => p.name);
  return tables;
}

/** Pools are keyed by a hash of the connection settings, so the key never holds the password. */
export function settingsKey(s: PgSettings): string {
  return createHash("sha256")
    .update(JSON.stringify([s.host, s.port, s.database, s.user, s.password ?? "", s.sslMode, s.schema]))
    .digest("hex");
}

/** Settings for error messages, when the configuration may be too broken to parse. */
export function trySettings(config: Row): PgSettings | undefined {
  try {
    return pgSettings(config);
  } catch {
    return undefined;
  }
}

/** Rethrows driver errors as ConnectorErrors carrying the same sentences check() gives. */
export function described<T>(config: Row, fn: () => Promise<T>, product?: string): Promise<T> {
  return withDescribedErrors(fn, (err) => describePgError(err, trySettings(config), product));
}

/** Snapshot names as pg_export_snapshot writes them ("00000003-0000001B-1"). */
const SNAPSHOT_NAME = /^[0-9A-F]{1,16}-[0-9A-F]{1,16}(-[0-9]{1,10})?$/i;

/**
 * A PostgreSQL read's scans start at the table's first block. With synchronized scans, a scan that
 * begins while another of the same large table runs (a run's bounded row count, say) starts where that
 * one is and wraps around: a table filled in key order then arrives as two ascending runs, and a first
 * sync puts the second below the destination index's rightmost page, where every insert descends from
 * the root and splits pages in half (bench/README.md, (q)). PostgreSQL's own setting: Redshift, which
 * shares beginRead and the cursor read, has no such parameter.
 */
export const PG_READ_SESSION = "SET LOCAL synchronize_seqscans = off";

/** Opens a read's read-only transaction; as of an exported snapshot when given (a live sync's backfill). */
export async function beginRead(client: pg.Client, snapshot?: string): Promise<void> {
  if (snapshot === undefined) {
    await client.query("BEGIN TRANSACTION READ ONLY");
    return;
  }
  if (!SNAPSHOT_NAME.test(snapshot)) throw new ConnectorError("The snapshot to read from has no valid name.");
  await client.query("BEGIN TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY");
  // Checked above: the name is hex digits and dashes only; SET cannot take a parameter.
  await client.query(`SET TRANSACTION SNAPSHOT '${snapshot}'`);
}

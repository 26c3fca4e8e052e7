// PostgreSQL source: previews and streaming reads of model queries, read-only.
import Cursor from "pg-cursor";
import type pg from "pg";
import type { CheckResult, QueryResult, ReadOptions, Row, SourceConnector } from "../types";
import { throwIfAborted, withTimeout } from "../shared/batching";
import { buildCatalog } from "../shared/catalog";
import { asConnectorError, ConnectorError, safeCheck } from "../shared/errors";
import { assertNoTrailingPaging, jsonSafeRow, normalizeModelQuery, tableJsonSchema } from "../shared/sql";
import {
  connect,
  described,
  describePgError,
  listColumns,
  pgSettings,
  quoteIdent,
  trySettings,
  withClient,
  type PgSettings,
} from "./connection";
import { postgresqlSourceDefinition } from "./definition";

/** Connects, reports the server version and checks that the schema exists. Shared with the destination. */
export async function checkPostgresql(config: Row): Promise<CheckResult> {
  let settings: PgSettings | undefined;
  return safeCheck(
    postgresqlSourceDefinition,
    config,
    () =>
      withClient(config, async (client, s) => {
        settings = s;
        const { rows } = await client.query<{ version: string; schema_exists: boolean }>(
          "SELECT version() AS version, EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1) AS schema_exists",
          [s.schema],
        );
        if (!rows[0].schema_exists) {
          return { ok: false, details: `Connected, but schema "${s.schema}" does not exist in database "${s.database}".` };
        }
        const version = /^\S+ [\d.]+/.exec(rows[0].version)?.[0] ?? rows[0].version;
        return { ok: true, details: `Connected to ${version} at ${s.host}:${s.port}, database "${s.database}".` };
      }),
    (err) => describePgError(err, settings ?? trySettings(config)),
  );
}

async function typeNames(client: pg.Client, oids: number[]): Promise<Map<number, string>> {
  if (oids.length === 0) return new Map();
  const { rows } = await client.query<{ oid: number; name: string }>(
    "SELECT t.oid::int AS oid, format_type(t.oid, NULL) AS name FROM pg_type t WHERE t.oid = ANY($1::oid[])",
    [oids],
  );
  return new Map(rows.map((r) => [r.oid, r.name]));
}

async function query(config: Row, sql: string, limit: number): Promise<QueryResult> {
  assertNoTrailingPaging(sql);
  const inner = normalizeModelQuery(sql);
  return described(config, () =>
    withClient(config, async (client, s) => {
      await client.query("BEGIN TRANSACTION READ ONLY");
      try {
        // SET LOCAL cannot take a parameter; the value is an integer we computed.
        await client.query(`SET LOCAL statement_timeout = ${Math.floor(s.queryTimeoutMs)}`);
        const result = await client.query(`SELECT * FROM (${inner}) AS q LIMIT $1`, [Math.max(0, Math.floor(limit))]);
        const names = await typeNames(client, [...new Set(result.fields.map((f) => f.dataTypeID))]);
        return {
          columns: result.fields.map((f) => ({ name: f.name, type: names.get(f.dataTypeID) ?? String(f.dataTypeID) })),
          rows: result.rows.map(jsonSafeRow),
        };
      } finally {
        await client.query("ROLLBACK").catch(() => undefined);
      }
    }),
  );
}

/** The model query, narrowed to rows at or after the saved cursor when reading incrementally. */
export function incrementalQuery(options: ReadOptions): { text: string; values: unknown[] } {
  const inner = normalizeModelQuery(options.query);
  if (!options.cursorField) return { text: inner, values: [] };
  const cursor = quoteIdent(options.cursorField);
  const hasValue = options.cursorValue !== undefined && options.cursorValue !== null;
  return {
    text: `SELECT * FROM (${inner}) AS subquery${hasValue ? ` WHERE ${cursor} >= $1` : ""} ORDER BY ${cursor}`,
    values: hasValue ? [options.cursorValue] : [],
  };
}

async function* read(config: Row, options: ReadOptions): AsyncGenerator<Row[]> {
  const s = pgSettings(config);
  const { text, values } = incrementalQuery(options);
  const batchSize = Math.max(1, Math.floor(options.batchSize));
  let client: pg.Client;
  try {
    client = await connect(s, { clientSideTimeout: false });
  } catch (err) {
    throw asConnectorError(err, (e) => describePgError(e, s));
  }
  let cursor: Cursor | undefined;
  try {
    await client.query("BEGIN TRANSACTION READ ONLY");
    // The server's statement timer would span the whole portal (every FETCH until the end), so
    // long reads are bounded per batch on our side instead.
    await client.query("SET LOCAL statement_timeout = 0");
    cursor = client.query(new Cursor(text, values));
    for (;;) {
      throwIfAborted(options.signal);
      const rows = await withTimeout(cursor.read(batchSize), s.queryTimeoutMs, () => {
        void client.end().catch(() => undefined);
        return new ConnectorError(`The query did not return the next ${batchSize} rows within ${s.queryTimeoutMs / 1000} s.`);
      });
      if (rows.length === 0) break;
      yield rows.map(jsonSafeRow);
      if (rows.length < batchSize) break;
    }
    await cursor.close();
    cursor = undefined;
    await client.query("COMMIT");
  } catch (err) {
    throw asConnectorError(err, (e) => describePgError(e, s));
  } finally {
    // Reached also when the consumer stops early (return()): release the portal and the connection.
    // close() waits for the server, which never answers on a connection we already ended.
    if (cursor) await withTimeout(cursor.close(), 2000, () => new Error("close timed out")).catch(() => undefined);
    await client.end().catch(() => undefined);
  }
}

async function discover(config: Row) {
  return described(config, () =>
    withClient(config, async (client, s) => {
      const tables = await listColumns(client, s.schema);
      return buildCatalog(
        [...tables.values()].map((t) => ({
          name: t.name,
          url: `${s.schema}.${t.name}`,
          json_schema: tableJsonSchema(t.columns),
          batch_support: false,
          batch_size: 0,
          request_method: "GET" as const,
          ...(t.primaryKey.length > 0 ? { primary_key: t.primaryKey } : {}),
        })),
      );
    }),
  );
}

export const postgresqlSource: SourceConnector = {
  definition: postgresqlSourceDefinition,
  check: checkPostgresql,
  discover,
  query,
  read,
};

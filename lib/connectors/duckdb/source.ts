// DuckDB source, as run inside its child process (isolated.ts runs it there under a memory limit):
// model queries over the workspace's Parquet, CSV and JSON files (each a view named by its path,
// e.g. "people.csv") and, optionally, a DuckDB database of that directory opened read-only. Every
// operation runs in its own locked-down session (session.ts). Rows stream in DuckDB's chunks; a
// fingerprinted read has DuckDB hash each row (md5 of the seed and the row's JSON, vectorised on its
// threads) and parses only the rows asked for.
import type { DuckDBDataChunk, DuckDBResult } from "@duckdb/node-api";
import type {
  Catalog,
  CheckResult,
  FingerprintedBatch,
  FingerprintOptions,
  QueryResult,
  ReadOptions,
  Row,
  SourceConnector,
} from "../types";
import { ConnectorError, safeCheck } from "../shared/errors";
import { sourceTablesCatalog, type TableInfo } from "../shared/sql-catalog";
import { modelSelect, subquery } from "../shared/sql";
import { duckdbSourceDefinition } from "./definition";
import {
  assertSelect,
  ATTACHED,
  describeDuckError,
  duckSettings,
  openSession,
  quoteIdent,
  withSession,
  withTimeout,
  type DuckSession,
  type DuckSettings,
  type SettingsOf,
} from "./session";
import { chunkColumn, chunkRow, chunkRows, columnReader, type ColumnReader } from "./values";

/** Turns anything thrown into a ConnectorError with DuckDB's sentence, the server's paths hidden. */
async function described<T>(s: DuckSettings, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw err instanceof ConnectorError ? err : new ConnectorError(describeDuckError(err, s));
  }
}

async function check(config: Row, settingsOf: SettingsOf = duckSettings): Promise<CheckResult> {
  return safeCheck(
    duckdbSourceDefinition,
    config,
    () =>
      withSession(config, async ({ conn, files, attached }) => {
        const version = (await conn.runAndReadAll("SELECT version() AS v")).getRowObjectsJson()[0].v;
        const what = `${files.length} data file${files.length === 1 ? "" : "s"}${attached ? " and the database file, read-only" : ""}`;
        return {
          ok: true,
          details: `Connected to DuckDB ${String(version)}: ${what} in the workspace's data directory.`,
        };
      }, settingsOf),
    (err) => describeDuckError(err),
  );
}

async function discover(config: Row, settingsOf: SettingsOf = duckSettings): Promise<Catalog> {
  return withSession(config, (session, s) =>
    described(s, async () => {
      const columns = (
        await session.conn.runAndReadAll(`
          SELECT table_catalog AS db, table_schema AS sch, table_name AS tbl, column_name AS col, data_type AS type, is_nullable AS nullable
            FROM information_schema.columns
           WHERE table_catalog IN ('memory', '${ATTACHED}') AND table_schema NOT IN ('information_schema', 'pg_catalog')
           ORDER BY table_catalog, table_schema, table_name, ordinal_position`)
      ).getRowObjectsJson();
      const keys = (
        await session.conn.runAndReadAll(`
          SELECT database_name AS db, schema_name AS sch, table_name AS tbl, constraint_column_names AS cols
            FROM duckdb_constraints() WHERE constraint_type = 'PRIMARY KEY'`)
      ).getRowObjectsJson();
      const nameOf = (r: Record<string, unknown>) =>
        r.sch === "main" ? String(r.tbl) : `${String(r.sch)}.${String(r.tbl)}`;
      const tables = new Map<string, TableInfo>();
      for (const c of columns) {
        const name = nameOf(c);
        const table = tables.get(name) ?? { name, columns: [], primaryKey: [] };
        table.columns.push({
          name: String(c.col),
          type: String(c.type),
          nullable: c.nullable === "YES",
          hasDefault: false,
        });
        tables.set(name, table);
      }
      for (const k of keys) {
        const table = tables.get(nameOf(k));
        if (table && Array.isArray(k.cols)) table.primaryKey = k.cols.map(String);
      }
      return sourceTablesCatalog(tables.values(), "duckdb");
    }),
    settingsOf,
  );
}

function selectOf(query: string): string {
  return `SELECT * FROM ${subquery(modelSelect(query, "postgresql"))} AS q`;
}

async function query(
  config: Row,
  sql: string,
  limit: number,
  settingsOf: SettingsOf = duckSettings,
): Promise<QueryResult> {
  const select = selectOf(sql);
  return withSession(config, ({ conn }, s) =>
    described(s, async () => {
      await assertSelect(conn, sql, s);
      const result = await withTimeout(conn, s, () =>
        conn.run(`${select} LIMIT ${Math.max(0, Math.floor(limit))}`),
      );
      const chunks = await withTimeout(conn, s, () => result.fetchAllChunks());
      const names = result.deduplicatedColumnNames();
      const types = result.columnTypes();
      const columnsOf = columnReader(names, types);
      return {
        columns: names.map((name, i) => ({ name, type: types[i].toString() })),
        rows: chunks.flatMap((chunk) => chunkRows(chunk, columnsOf)),
      };
    }),
    settingsOf,
  );
}

/** The read's statement: the model, its cursor filter and order, and the fingerprint column first when asked. */
async function readStatement(session: DuckSession, options: ReadOptions, seed?: string): Promise<string> {
  let select = selectOf(options.query);
  if (options.cursorField) {
    const prepared = await session.conn.prepare(`${select} LIMIT 0`);
    let type: string | undefined;
    for (let i = 0; i < prepared.columnCount; i++)
      if (prepared.columnName(i) === options.cursorField) type = prepared.columnType(i).toString();
    if (!type)
      throw new ConnectorError(
        `The cursor field "${options.cursorField}" is not a column of the model's query.`,
      );
    const cursor = `q.${quoteIdent(options.cursorField)}`;
    const hasValue = options.cursorValue !== undefined && options.cursorValue !== null;
    const from = hasValue
      ? ` WHERE ${cursor} >= CAST('${String(options.cursorValue).replace(/'/g, "''")}' AS ${type})`
      : "";
    select = `SELECT q.* FROM ${subquery(select)} AS q${from} ORDER BY ${cursor}`;
  }
  if (seed === undefined) return select;
  return `SELECT md5('${seed.replace(/'/g, "''")}' || CAST(to_json(f) AS VARCHAR)) AS ${FINGERPRINT}, f.* FROM ${subquery(select)} AS f`;
}

const FINGERPRINT = "__datasync_fingerprint";

/** The chunks of `sql`, each fetch bounded by the query timeout and stopped by the signal. */
async function* chunksOf(
  session: DuckSession,
  s: DuckSettings,
  sql: string,
  signal?: AbortSignal,
): AsyncGenerator<{ chunk: DuckDBDataChunk; result: DuckDBResult }> {
  const stop = () => session.conn.interrupt();
  signal?.addEventListener("abort", stop);
  try {
    const result = await withTimeout(session.conn, s, () => session.conn.stream(sql));
    for (;;) {
      if (signal?.aborted) throw new ConnectorError("The read was stopped.");
      const chunk = await withTimeout(session.conn, s, () => result.fetchChunk());
      if (!chunk || chunk.rowCount === 0) return;
      yield { chunk, result };
    }
  } finally {
    signal?.removeEventListener("abort", stop);
  }
}

/** A read's session and the chunks of its statement, closed when the consumer stops. */
async function* readChunks(
  config: Row,
  options: ReadOptions,
  seed: string | undefined,
  settingsOf: SettingsOf,
): AsyncGenerator<{ chunk: DuckDBDataChunk; reader: ColumnReader }> {
  const s = await settingsOf(config);
  const session = await described(s, () => openSession(s));
  try {
    await described(s, () => assertSelect(session.conn, options.query, s));
    const sql = await described(s, () => readStatement(session, options, seed));
    let reader: ColumnReader | undefined;
    const chunks = chunksOf(session, s, sql, options.signal);
    for (;;) {
      const next = await described(s, () => chunks.next());
      if (next.done) return;
      const { chunk, result } = next.value;
      reader ??= columnReader(result.deduplicatedColumnNames(), result.columnTypes());
      yield { chunk, reader };
    }
  } finally {
    session.close();
  }
}

async function* read(
  config: Row,
  options: ReadOptions,
  settingsOf: SettingsOf = duckSettings,
): AsyncGenerator<Row[]> {
  const batchSize = Math.max(1, Math.floor(options.batchSize));
  let batch: Row[] = [];
  for await (const { chunk, reader } of readChunks(config, options, undefined, settingsOf)) {
    for (let i = 0; i < chunk.rowCount; i++) {
      batch.push(chunkRow(chunk, reader, i));
      if (batch.length >= batchSize) {
        yield batch;
        batch = [];
      }
    }
  }
  if (batch.length > 0) yield batch;
}

/** Rows of read(), hashed by DuckDB; a row is parsed only when the engine asks for it. */
async function* readFingerprinted(
  config: Row,
  options: ReadOptions & { fingerprint: FingerprintOptions },
  settingsOf: SettingsOf = duckSettings,
): AsyncGenerator<FingerprintedBatch> {
  const batchSize = Math.max(1, Math.floor(options.batchSize));
  const { seed, primaryKey } = options.fingerprint;
  let rows: { chunk: DuckDBDataChunk; reader: ColumnReader; index: number }[] = [];
  let keyValues: unknown[] = [];
  let fingerprints: string[] = [];
  const batch = (): FingerprintedBatch => {
    const at = rows;
    return {
      length: at.length,
      keyValues,
      fingerprints,
      // Column 0 is the fingerprint, not part of the row.
      row: (i) => chunkRow(at[i].chunk, at[i].reader, at[i].index, 0),
    };
  };
  for await (const { chunk, reader } of readChunks(config, options, seed, settingsOf)) {
    const keyIndex = reader.names.indexOf(primaryKey, 1);
    const keys = keyIndex < 0 ? undefined : chunkColumn(chunk, reader, keyIndex);
    const hashes = chunkColumn(chunk, reader, 0);
    for (let i = 0; i < chunk.rowCount; i++) {
      rows.push({ chunk, reader, index: i });
      keyValues.push(keys ? keys[i] : undefined);
      fingerprints.push(String(hashes[i]));
      if (rows.length >= batchSize) {
        yield batch();
        rows = [];
        keyValues = [];
        fingerprints = [];
      }
    }
  }
  if (rows.length > 0) yield batch();
}

/**
 * The connector run in this process: what the DuckDB child process (child-main.ts) runs. The server
 * uses isolated.ts, which runs it in that child under a memory limit.
 */
export const duckdbInProcess = duckdbOver(duckSettings);

/** The same operations over the directory and limits `settingsOf` gives (the file layer's copies). */
export function duckdbOver(settingsOf: SettingsOf) {
  return {
    definition: duckdbSourceDefinition,
    check: (config: Row) => check(config, settingsOf),
    discover: (config: Row) => discover(config, settingsOf),
    query: (config: Row, sql: string, limit: number) => query(config, sql, limit, settingsOf),
    checkQuery: (sql: string) => void modelSelect(sql, "postgresql"),
    read: (config: Row, options: ReadOptions) => read(config, options, settingsOf),
    readFingerprinted: (config: Row, options: ReadOptions & { fingerprint: FingerprintOptions }) =>
      readFingerprinted(config, options, settingsOf),
  } satisfies SourceConnector;
}

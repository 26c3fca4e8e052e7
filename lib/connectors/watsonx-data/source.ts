// IBM watsonx.data source (Presto engine) through its REST query API. Every operation is SQL sent to
// the query endpoint (client.ts): discovery reads information_schema, previews and reads wrap the
// model as a subquery. The API answers a statement's whole result at once, so a read asks for at
// most max_rows + 1 rows, fails with a sentence beyond max_rows, and hands the rows on in batches.
import type { Catalog, CheckResult, QueryResult, ReadOptions, Row, SourceConnector } from "../types";
import { throwIfAborted } from "../shared/batching";
import { ConnectorError, errorMessage, safeCheck, withDescribedErrors } from "../shared/errors";
import { sourceTablesCatalog, type TableInfo } from "../shared/sql-catalog";
import { jsonSafeRow, modelSelect, subquery, type ColumnInfo } from "../shared/sql";
import { executeSql } from "./client";
import { watsonxSettings, type WatsonxSettings } from "./config";
import { watsonxDataSourceDefinition } from "./definition";

/** A Presto string literal: quotes doubled (Presto strings have no backslash escapes). */
export function literal(value: string): string {
  if (value.includes("\u0000")) throw new ConnectorError("Values cannot contain NUL characters.");
  return `'${value.replace(/'/g, "''")}'`;
}

/** `"a""b"`: Presto's quoted identifier. */
export function quoteIdent(name: string): string {
  if (name.includes("\u0000")) throw new ConnectorError("Identifiers cannot contain NUL characters.");
  return `"${name.replace(/"/g, '""')}"`;
}

function described<T>(fn: () => Promise<T>): Promise<T> {
  return withDescribedErrors(fn, errorMessage);
}

async function check(config: Row, signal?: AbortSignal): Promise<CheckResult> {
  return safeCheck(watsonxDataSourceDefinition, config, async () => {
    const s = watsonxSettings(config);
    const [row] = await executeSql(
      s,
      `SELECT (SELECT count(*) FROM information_schema.schemata WHERE schema_name = ${literal(s.schema)}) AS schemas,
              (SELECT count(*) FROM information_schema.tables WHERE table_schema = ${literal(s.schema)}) AS tables`,
      signal,
    );
    if (!row || Number(row.schemas) === 0) {
      return {
        ok: false,
        details: `Connected to watsonx.data engine "${s.engineId}", but catalog "${s.database}" has no schema "${s.schema}".`,
      };
    }
    return {
      ok: true,
      details: `Connected to watsonx.data engine "${s.engineId}" in ${s.region}: ${String(row.tables)} tables in ${s.database}.${s.schema}.`,
    };
  });
}

async function discover(config: Row, signal?: AbortSignal): Promise<Catalog> {
  return described(async () => {
    const s = watsonxSettings(config);
    const rows = await executeSql(
      s,
      `SELECT table_name, column_name, data_type, is_nullable
         FROM information_schema.columns
        WHERE table_schema = ${literal(s.schema)} AND table_catalog = ${literal(s.database)}
        ORDER BY table_name, ordinal_position`,
      signal,
    );
    const tables = new Map<string, TableInfo>();
    for (const r of rows) {
      const name = String(r.table_name);
      const table = tables.get(name) ?? { name, columns: [] as ColumnInfo[], primaryKey: [] };
      table.columns.push({
        name: String(r.column_name),
        type: String(r.data_type),
        nullable: r.is_nullable !== "NO",
        hasDefault: false,
      });
      tables.set(name, table);
    }
    return sourceTablesCatalog(tables.values(), `${s.database}.${s.schema}`);
  });
}

/** The API gives no column types; a preview names each column by its first value's JSON type. */
function jsonTypeName(value: unknown): string {
  if (value === null || value === undefined) return "unknown";
  if (Array.isArray(value)) return "array";
  return typeof value === "object" ? "object" : typeof value;
}

async function query(config: Row, sql: string, limit: number, signal?: AbortSignal): Promise<QueryResult> {
  const inner = modelSelect(sql, "trino");
  return described(async () => {
    const s = watsonxSettings(config);
    const rows = (
      await executeSql(
        s,
        `SELECT * FROM ${subquery(inner)} AS subquery LIMIT ${Math.max(0, Math.floor(limit))}`,
        signal,
      )
    ).map(jsonSafeRow);
    const first = rows[0] ?? {};
    return {
      columns: Object.keys(first).map((name) => ({
        name,
        type: jsonTypeName(rows.find((r) => r[name] !== null)?.[name]),
      })),
      rows,
    };
  });
}

/**
 * The saved cursor as a literal of the cursor column's own type (`CAST('…' AS timestamp)`): Presto
 * does not compare a timestamp with a varchar. The type comes from Presto's typeof() on one row;
 * undefined when the model has no rows at all.
 */
async function cursorLiteral(
  s: WatsonxSettings,
  inner: string,
  field: string,
  value: string,
  signal?: AbortSignal,
): Promise<string | undefined> {
  const [row] = await executeSql(
    s,
    `SELECT typeof(subquery.${quoteIdent(field)}) AS t FROM ${subquery(inner)} AS subquery LIMIT 1`,
    signal,
  );
  if (!row) return undefined;
  const type = String(row.t);
  if (!/^[a-z][a-z0-9 _(),]*$/i.test(type))
    throw new ConnectorError(
      `The cursor column "${field}" has a type this connector cannot compare: ${type}.`,
    );
  return `CAST(${literal(value)} AS ${type})`;
}

/** The read's statement: the model narrowed to the saved cursor, in cursor order, capped at max_rows + 1. */
export function readStatement(
  inner: string,
  maxRows: number,
  cursor?: { field: string; literal?: string },
): string {
  let sql = `SELECT * FROM ${subquery(inner)} AS subquery`;
  if (cursor) {
    const column = `subquery.${quoteIdent(cursor.field)}`;
    if (cursor.literal) sql += ` WHERE ${column} >= ${cursor.literal}`;
    sql += ` ORDER BY ${column}`;
  }
  return `${sql} LIMIT ${maxRows + 1}`;
}

async function* read(config: Row, options: ReadOptions): AsyncGenerator<Row[]> {
  const inner = modelSelect(options.query, "trino");
  const s = await described(async () => watsonxSettings(config));
  const batchSize = Math.max(1, Math.floor(options.batchSize));
  let cursor: { field: string; literal?: string } | undefined;
  if (options.cursorField) {
    cursor = { field: options.cursorField };
    if (options.cursorValue !== undefined && options.cursorValue !== null) {
      cursor.literal = await cursorLiteral(
        s,
        inner,
        options.cursorField,
        options.cursorValue,
        options.signal,
      );
      if (cursor.literal === undefined) return;
    }
  }
  const rows = await executeSql(s, readStatement(inner, s.maxRows, cursor), options.signal);
  if (rows.length > s.maxRows) {
    throw new ConnectorError(
      `The model returned more than ${s.maxRows} rows (max_rows). watsonx.data's query API answers a whole result at once, so reads are capped: use an incremental sync with a cursor column, narrow the model, or raise max_rows.`,
    );
  }
  for (let i = 0; i < rows.length; i += batchSize) {
    throwIfAborted(options.signal);
    yield rows.slice(i, i + batchSize).map(jsonSafeRow);
  }
}

export const watsonxDataSource: SourceConnector = {
  definition: watsonxDataSourceDefinition,
  check,
  discover,
  query,
  checkQuery: (sql) => void modelSelect(sql, "trino"),
  read,
};

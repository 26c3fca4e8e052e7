// Snowflake source: model queries through the SQL API v2, read partition by partition (never the
// whole result in memory), discovery from the database's information_schema, incremental cursors.
import type { Catalog, CheckResult, QueryResult, ReadOptions, Row, SourceConnector, Stream } from "../types";
import { buildCatalog } from "../shared/catalog";
import { safeCheck } from "../shared/errors";
import { modelSelect, subquery } from "../shared/sql";
import { rebatch } from "../shared/statement-api";
import { MAX_DISCOVERED_COLUMNS, MAX_DISCOVERED_STREAMS, MAX_DISCOVERY_PAGES } from "../shared/discovery-limits";
import { executeStatement } from "./client";
import { parseSnowflakeConfig, type SnowflakeConfig } from "./config";
import { snowflakeSourceDefinition } from "./definition";
import { rowsReader, snowflakeColumnSchema, snowflakeTypeName } from "./values";

/** A quoted identifier: exactly the name the result gave the column (Snowflake upper-cases unquoted ones). */
export function quoteSnowflakeIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

async function check(config: Row, signal?: AbortSignal): Promise<CheckResult> {
  return safeCheck(snowflakeSourceDefinition, config, async () => {
    const c = parseSnowflakeConfig(config);
    const version = await singleValue(c, "SELECT CURRENT_VERSION()", [], signal);
    if (c.schema) {
      const found = await singleValue(c, "SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name = ?", [c.schema], signal);
      if (found === 0) return { ok: false, details: `Connected, but schema "${c.schema}" does not exist in database "${c.database}" (or role ${c.role} cannot see it).` };
    }
    return { ok: true, details: `Connected to Snowflake ${String(version)} at ${c.host}: database "${c.database}", warehouse "${c.warehouse}", role "${c.role}".` };
  });
}

async function singleValue(c: SnowflakeConfig, statement: string, bindings: string[] = [], signal?: AbortSignal): Promise<unknown> {
  const result = await executeStatement(c, statement, bindings, signal);
  const read = rowsReader(result.columns);
  for await (const cells of result.partitions()) {
    const row = read(cells.slice(0, 1))[0];
    return row ? Object.values(row)[0] : undefined;
  }
  return undefined;
}

async function discover(config: Row, signal?: AbortSignal): Promise<Catalog> {
  const c = parseSnowflakeConfig(config);
  const where = c.schema ? "table_schema = ?" : "UPPER(table_schema) <> 'INFORMATION_SCHEMA'";
  const result = await executeStatement(
    c,
    `SELECT table_schema, table_name, column_name, data_type, numeric_scale, is_nullable FROM information_schema.columns WHERE ${where} ORDER BY table_schema, table_name, ordinal_position`,
    c.schema ? [c.schema] : [],
    signal,
  );
  const read = rowsReader(result.columns);
  const tables = new Map<string, { schema: string; table: string; properties: Record<string, unknown> }>();
  let pages = 0;
  let columns = 0;
  discovery: for await (const cells of result.partitions()) {
    if (++pages > MAX_DISCOVERY_PAGES) break;
    for (const row of read(cells)) {
      if (++columns > MAX_DISCOVERED_COLUMNS) break discovery;
      const v = Object.fromEntries(Object.entries(row).map(([k, value]) => [k.toLowerCase(), value]));
      const schema = String(v.table_schema);
      const table = String(v.table_name);
      const key = `${schema}\u0000${table}`;
      let entry = tables.get(key);
      if (!entry) {
        if (tables.size >= MAX_DISCOVERED_STREAMS) break discovery;
        tables.set(key, (entry = { schema, table, properties: {} }));
      }
      const scale = v.numeric_scale === null || v.numeric_scale === undefined ? null : Number(v.numeric_scale);
      entry.properties[String(v.column_name)] = snowflakeColumnSchema(String(v.data_type), scale, v.is_nullable === "YES");
    }
  }
  const streams = [...tables.values()].map(
    (t): Stream => ({
      name: c.schema ? t.table : `${t.schema}.${t.table}`,
      action: "fetch",
      url: `${c.database}.${t.schema}.${t.table}`,
      json_schema: { type: "object", properties: t.properties },
      batch_support: false,
      batch_size: 0,
      request_method: "GET",
    }),
  );
  return buildCatalog(streams);
}

async function query(config: Row, sql: string, limit: number, signal?: AbortSignal): Promise<QueryResult> {
  const c = parseSnowflakeConfig(config);
  const inner = modelSelect(sql, "snowflake");
  const n = Math.max(0, Math.floor(limit));
  const result = await executeStatement(c, `SELECT * FROM ${subquery(inner)} AS q LIMIT ${n}`, [], signal);
  const read = rowsReader(result.columns);
  const rows: Row[] = [];
  for await (const cells of result.partitions()) {
    rows.push(...read(cells.slice(0, n - rows.length)));
    if (rows.length >= n) break;
  }
  return { columns: result.columns.map((col) => ({ name: col.name, type: snowflakeTypeName(col) })), rows };
}

/** The model query, narrowed to rows at or after the saved cursor and ordered by it when incremental. */
export function snowflakeReadStatement(options: ReadOptions): { statement: string; bindings: string[] } {
  const inner = modelSelect(options.query, "snowflake");
  if (!options.cursorField) return { statement: `SELECT * FROM ${subquery(inner)} AS subquery`, bindings: [] };
  const cursor = `subquery.${quoteSnowflakeIdent(options.cursorField)}`;
  const from = options.cursorValue !== undefined && options.cursorValue !== null;
  return {
    statement: `SELECT * FROM ${subquery(inner)} AS subquery${from ? ` WHERE ${cursor} >= ?` : ""} ORDER BY ${cursor}`,
    bindings: from ? [String(options.cursorValue)] : [],
  };
}

async function* read(config: Row, options: ReadOptions): AsyncGenerator<Row[]> {
  const c = parseSnowflakeConfig(config);
  const { statement, bindings } = snowflakeReadStatement(options);
  const result = await executeStatement(c, statement, bindings, options.signal);
  const toRows = rowsReader(result.columns);
  async function* pages() {
    for await (const cells of result.partitions()) yield toRows(cells);
  }
  yield* rebatch(pages(), Math.max(1, Math.floor(options.batchSize)), options.signal);
}

export const snowflakeSource: SourceConnector = {
  definition: snowflakeSourceDefinition,
  check,
  discover,
  query,
  checkQuery: (q) => void modelSelect(q, "snowflake"),
  read,
};

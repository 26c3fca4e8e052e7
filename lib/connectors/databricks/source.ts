// Databricks source: model queries on a SQL warehouse through the Statement Execution API 2.0, read
// chunk by chunk (never the whole result in memory), discovery from information_schema, incremental
// cursors with a named parameter.
import type { Catalog, CheckResult, QueryResult, ReadOptions, Row, SourceConnector, Stream } from "../types";
import { buildCatalog } from "../shared/catalog";
import { safeCheck } from "../shared/errors";
import { modelSelect, subquery } from "../shared/sql";
import { rebatch } from "../shared/statement-api";
import { MAX_DISCOVERED_COLUMNS, MAX_DISCOVERED_STREAMS, MAX_DISCOVERY_PAGES } from "../shared/discovery-limits";
import { executeStatement } from "./client";
import { parseDatabricksConfig } from "./config";
import { databricksSourceDefinition } from "./definition";
import { databricksColumnSchema, databricksRowsReader } from "./values";

/** A Spark SQL identifier in backticks (a backtick doubled). */
export function quoteDatabricksIdent(name: string): string {
  return `\`${name.replaceAll("`", "``")}\``;
}

async function firstRows(config: Row, statement: string, parameters: Record<string, string>, limit: number, signal?: AbortSignal) {
  const c = parseDatabricksConfig(config);
  const result = await executeStatement(c, statement, parameters, signal);
  const read = databricksRowsReader(result.columns);
  const rows: Row[] = [];
  for await (const cells of result.chunks()) {
    rows.push(...read(cells.slice(0, limit - rows.length)));
    if (rows.length >= limit) break;
  }
  return { columns: result.columns, rows };
}

async function check(config: Row, signal?: AbortSignal): Promise<CheckResult> {
  return safeCheck(databricksSourceDefinition, config, async () => {
    const c = parseDatabricksConfig(config);
    const { rows } = await firstRows(
      config,
      "SELECT count(*) AS found FROM system.information_schema.schemata WHERE catalog_name = :catalog AND schema_name = :schema",
      { catalog: c.catalog, schema: c.schema },
      1,
      signal,
    );
    if (Number(rows[0]?.found ?? 0) === 0) {
      return { ok: false, details: `Connected, but schema "${c.schema}" does not exist in catalog "${c.catalog}" (or the token's user cannot see it).` };
    }
    return { ok: true, details: `Connected to Databricks at ${c.host}: SQL warehouse ${c.warehouseId}, ${c.catalog}.${c.schema}.` };
  });
}

async function discover(config: Row, signal?: AbortSignal): Promise<Catalog> {
  const c = parseDatabricksConfig(config);
  const result = await executeStatement(
    c,
    "SELECT table_name, column_name, data_type, full_data_type, is_nullable FROM system.information_schema.columns WHERE table_catalog = :catalog AND table_schema = :schema ORDER BY table_name, ordinal_position",
    { catalog: c.catalog, schema: c.schema },
    signal,
  );
  const read = databricksRowsReader(result.columns);
  const tables = new Map<string, Record<string, unknown>>();
  let pages = 0;
  let columns = 0;
  discovery: for await (const cells of result.chunks()) {
    if (++pages > MAX_DISCOVERY_PAGES) break;
    for (const row of read(cells)) {
      if (++columns > MAX_DISCOVERED_COLUMNS) break discovery;
      const table = String(row.table_name);
      let properties = tables.get(table);
      if (!properties) {
        if (tables.size >= MAX_DISCOVERED_STREAMS) break discovery;
        tables.set(table, (properties = {}));
      }
      properties[String(row.column_name)] = databricksColumnSchema(String(row.data_type), row.is_nullable === "YES", row.full_data_type ? String(row.full_data_type) : undefined);
    }
  }
  const streams = [...tables.entries()].map(
    ([table, properties]): Stream => ({
      name: table,
      action: "fetch",
      url: `${c.catalog}.${c.schema}.${table}`,
      json_schema: { type: "object", properties },
      batch_support: false,
      batch_size: 0,
      request_method: "GET",
    }),
  );
  return buildCatalog(streams);
}

async function query(config: Row, sql: string, limit: number, signal?: AbortSignal): Promise<QueryResult> {
  const inner = modelSelect(sql, "databricks");
  const n = Math.max(0, Math.floor(limit));
  const { columns, rows } = await firstRows(config, `SELECT * FROM ${subquery(inner)} AS q LIMIT ${n}`, {}, n, signal);
  return { columns: columns.map((col) => ({ name: col.name, type: (col.type_text ?? col.type_name).toUpperCase() })), rows };
}

/** The model query, narrowed to rows at or after the saved cursor and ordered by it when incremental. */
export function databricksReadStatement(options: ReadOptions): { statement: string; parameters: Record<string, string> } {
  const inner = modelSelect(options.query, "databricks");
  if (!options.cursorField) return { statement: `SELECT * FROM ${subquery(inner)} AS subquery`, parameters: {} };
  const cursor = `subquery.${quoteDatabricksIdent(options.cursorField)}`;
  const from = options.cursorValue !== undefined && options.cursorValue !== null;
  return {
    statement: `SELECT * FROM ${subquery(inner)} AS subquery${from ? ` WHERE ${cursor} >= :cursor_value` : ""} ORDER BY ${cursor}`,
    parameters: from ? { cursor_value: String(options.cursorValue) } : {},
  };
}

async function* read(config: Row, options: ReadOptions): AsyncGenerator<Row[]> {
  const c = parseDatabricksConfig(config);
  const { statement, parameters } = databricksReadStatement(options);
  const result = await executeStatement(c, statement, parameters, options.signal);
  const toRows = databricksRowsReader(result.columns);
  async function* pages() {
    for await (const cells of result.chunks()) yield toRows(cells);
  }
  yield* rebatch(pages(), Math.max(1, Math.floor(options.batchSize)), options.signal);
}

export const databricksSource: SourceConnector = {
  definition: databricksSourceDefinition,
  check,
  discover,
  query,
  checkQuery: (q) => void modelSelect(q, "databricks"),
  read,
};

// ClickHouse source: discovery from system.columns, previews and streaming reads of model queries
// over the HTTP interface (TabSeparatedWithNamesAndTypes, read as bytes, one batch held at a time).
import { randomUUID } from "node:crypto";
import type { BoundedCount, Catalog, CheckResult, CountOptions, QueryResult, ReadOptions, Row, SourceConnector } from "../types";
import { boundedCount, boundedCountSql } from "../shared/bounded-count";
import { throwIfAborted } from "../shared/batching";
import { asConnectorError, safeCheck, withDescribedErrors } from "../shared/errors";
import { sourceTablesCatalog, type TableInfo } from "../shared/sql-catalog";
import { modelSelect, subquery } from "../shared/sql";
import { clickhouseConfig, tryClickhouseConfig, type ClickhouseConfig } from "./config";
import { clickhouseSourceDefinition } from "./definition";
import { ClickhouseError, describeClickhouseError, killQuery, querySettings, queryText } from "./http";
import { cursorCondition, describeQuery, readStatement, rowOf, streamRows, tsvRows } from "./read";
import { clickhouseTextRows } from "./text-rows";
import { parseType, quoteString, typeJsonSchema } from "./values";

const definition = clickhouseSourceDefinition;

function described<T>(config: Row, fn: () => Promise<T>): Promise<T> {
  return withDescribedErrors(fn, (err) => describeClickhouseError(err, tryClickhouseConfig(config)));
}

async function check(config: Row): Promise<CheckResult> {
  let c: ClickhouseConfig | undefined;
  return safeCheck(
    definition,
    config,
    async () => {
      c = clickhouseConfig(config);
      const settings = await querySettings(c);
      const [[version, exists]] = tsvRows(
        await queryText(c, {
          sql: `SELECT version(), count() FROM system.databases WHERE name = ${quoteString(c.database)} FORMAT TabSeparated`,
          settings,
          timeoutMs: c.queryTimeoutMs,
        }),
      );
      if (exists === "0") return { ok: false, details: `Connected to ClickHouse ${version}, but database "${c.database}" does not exist on ${c.where}.` };
      return { ok: true, details: `Connected to ClickHouse ${version} at ${c.where}, database "${c.database}".` };
    },
    (err) => describeClickhouseError(err, c ?? tryClickhouseConfig(config)),
  );
}

async function discover(config: Row): Promise<Catalog> {
  return described(config, async () => {
    const c = clickhouseConfig(config);
    const settings = await querySettings(c);
    const text = await queryText(c, {
      // Unsorted: ClickHouse's sort is not stable, and system.columns gives each table's columns in
      // their order (18.x has no position column to sort by).
      sql: `SELECT table, name, type FROM system.columns WHERE database = ${quoteString(c.database)} FORMAT TabSeparated`,
      settings,
      timeoutMs: c.queryTimeoutMs,
    });
    // No primary key is declared: a ClickHouse primary key orders rows, it does not make them unique.
    const tables = new Map<string, TableInfo>();
    for (const [table, name, type] of tsvRows(text)) {
      const info = tables.get(table) ?? { name: table, columns: [], primaryKey: [] };
      info.columns.push({ name, type, nullable: /^(LowCardinality\()?Nullable\(/.test(type), hasDefault: true });
      tables.set(table, info);
    }
    const catalog = sourceTablesCatalog([...tables.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)), c.database);
    // ClickHouse's own types, mapped by their names (the shared SQL mapping knows PostgreSQL's and MariaDB's).
    for (const stream of catalog.streams) {
      const info = tables.get(stream.name);
      if (!info) continue;
      stream.json_schema = { type: "object", properties: Object.fromEntries(info.columns.map((col) => [col.name, typeJsonSchema(parseType(col.type))])) };
    }
    return catalog;
  });
}

async function* read(config: Row, options: ReadOptions): AsyncGenerator<Row[]> {
  const c = clickhouseConfig(config);
  const inner = modelSelect(options.query, "clickhouse");
  const batchSize = Math.max(1, Math.floor(options.batchSize));
  try {
    throwIfAborted(options.signal);
    const columns = await describeQuery(c, inner, await querySettings(c, options.signal), options.signal);
    const statement = readStatement(inner, columns, options);
    yield* streamRows(c, statement, rowOf(columns), batchSize, options.signal);
  } catch (err) {
    throw asConnectorError(err, (e) => describeClickhouseError(e, c));
  }
}

async function query(config: Row, sql: string, limit: number): Promise<QueryResult> {
  const inner = modelSelect(sql, "clickhouse");
  return described(config, async () => {
    const c = clickhouseConfig(config);
    const columns = await describeQuery(c, inner, await querySettings(c));
    const rows: Row[] = [];
    const size = Math.max(1, Math.floor(limit));
    for await (const batch of streamRows(c, readStatement(inner, columns, { limit }), rowOf(columns), size)) rows.push(...batch);
    return { columns: columns.map((col) => ({ name: col.name, type: col.type.text })), rows };
  });
}

/** ClickHouse's TIMEOUT_EXCEEDED: max_execution_time stopped the query. */
const TIMEOUT_EXCEEDED = 159;

/**
 * A bounded count of the read's rows (shared/bounded-count.ts): readonly, the model wrapped as the
 * read wraps it, narrowed by the cursor as the read is, and time-boxed twice (max_execution_time
 * where the user's profile lets it be set, and a client deadline over the whole call). A count the
 * time box stops is unknown (null). Once sent, a count that did not finish — its deadline, a
 * cancel, an error — is KILLed: a dropped connection alone does not stop a query still computing.
 */
async function countRows(config: Row, options: CountOptions): Promise<BoundedCount | null> {
  const inner = modelSelect(options.query, "clickhouse");
  return described(config, async () => {
    const c = clickhouseConfig(config);
    const timeoutMs = Math.max(1, Math.min(c.queryTimeoutMs, options.timeoutMs));
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
    const queryId = randomUUID();
    let sent = false;
    let done = false;
    try {
      const settings = await querySettings(c, signal);
      let from = `${subquery(inner)} AS q`;
      if (options.cursorField && options.cursorValue !== undefined && options.cursorValue !== null) {
        from += cursorCondition(await describeQuery(c, inner, settings, signal), options)?.where ?? "";
      }
      const boxed = "max_execution_time" in settings ? { ...settings, max_execution_time: String(Math.max(1, Math.ceil(timeoutMs / 1000))) } : settings;
      sent = true;
      const text = await queryText(c, { sql: `${boundedCountSql(from, options.limit)} FORMAT TabSeparated`, settings: boxed, queryId, signal, timeoutMs });
      done = true;
      return boundedCount(Number(text.trim()), options.limit);
    } catch (err) {
      if (!deadline.aborted && !(err instanceof ClickhouseError && err.code === TIMEOUT_EXCEEDED)) throw err;
      return null;
    } finally {
      if (sent && !done) await killQuery(c, queryId);
    }
  });
}

export const clickhouseSource: SourceConnector = {
  definition,
  check,
  discover,
  query,
  checkQuery: (sql) => void modelSelect(sql, "clickhouse"),
  read,
  countRows,
  textRows: clickhouseTextRows,
};

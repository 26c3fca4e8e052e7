// ClickHouse source: discovery from system.columns, previews and streaming reads of model queries
// over the HTTP interface (TabSeparatedWithNamesAndTypes, read as bytes, one batch held at a time).
import { randomUUID } from "node:crypto";
import type { BoundedCount, Catalog, CheckResult, CountOptions, QueryResult, ReadOptions, Row, SourceConnector } from "../types";
import { boundedCount, boundedCountSql } from "../shared/bounded-count";
import { throwIfAborted, withTimeout } from "../shared/batching";
import { asConnectorError, ConnectorError, safeCheck, withDescribedErrors } from "../shared/errors";
import { sourceTablesCatalog, type TableInfo } from "../shared/sql-catalog";
import { modelSelect, subquery } from "../shared/sql";
import { clickhouseConfig, tryClickhouseConfig, type ClickhouseConfig } from "./config";
import { clickhouseSourceDefinition } from "./definition";
import { ClickhouseError, describeClickhouseError, dispatcher, killQuery, openQuery, querySettings, queryText } from "./http";
import { byteLines, IncompleteLineError, splitFields, unescapeBytes } from "./tsv";
import { cursorLiteral, fieldValue, parseType, quoteIdent, quoteString, typeJsonSchema, utcExpression, type ChType } from "./values";

const definition = clickhouseSourceDefinition;

function described<T>(config: Row, fn: () => Promise<T>): Promise<T> {
  return withDescribedErrors(fn, (err) => describeClickhouseError(err, tryClickhouseConfig(config)));
}

/** Rows of a small TabSeparated answer, each as its unescaped text fields. */
function tsvRows(text: string): string[][] {
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => splitFields(Buffer.from(line, "utf8")).map((f) => unescapeBytes(f).toString("utf8")));
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

interface Column {
  name: string;
  type: ChType;
}

/** The model's columns and types, without running it (DESCRIBE of the query). */
async function describeQuery(c: ClickhouseConfig, inner: string, settings: Record<string, string>, signal?: AbortSignal): Promise<Column[]> {
  const text = await queryText(c, { sql: `DESCRIBE TABLE ${subquery(inner)} FORMAT TabSeparated`, settings, signal, timeoutMs: c.queryTimeoutMs });
  const seen = new Set<string>();
  const columns: Column[] = [];
  for (const [name, type] of tsvRows(text)) {
    // A repeated name is one key of a row: the first position, as in the other sources' rows.
    if (seen.has(name)) continue;
    seen.add(name);
    columns.push({ name, type: parseType(type) });
  }
  return columns;
}

/**
 * The statement a read or preview sends: the model wrapped as a subquery, each column selected by
 * name under a positional alias (no alias can shadow a column), DateTimes in UTC, the cursor's
 * condition and order, and the format.
 */
export function readStatement(inner: string, columns: Column[], options: { cursorField?: string; cursorValue?: string | null; limit?: number }): string {
  const select = columns.map((col, i) => {
    const ref = `q.${quoteIdent(col.name)}`;
    return `${utcExpression(ref, col.type) ?? ref} AS _c${i}`;
  });
  const cursor = cursorCondition(columns, options);
  const order = cursor ? ` ORDER BY ${cursor.ref}` : "";
  const limit = options.limit === undefined ? "" : ` LIMIT ${Math.max(0, Math.floor(options.limit))}`;
  return `SELECT ${select.join(", ")} FROM ${subquery(inner)} AS q${cursor?.where ?? ""}${order}${limit} FORMAT TabSeparatedWithNamesAndTypes`;
}

/**
 * The cursor's column (as `q`'s) and the condition an incremental read starts from: shared by the
 * read and its count, so the count narrows exactly as the read does. Null without a cursor field.
 */
function cursorCondition(columns: Column[], options: { cursorField?: string; cursorValue?: string | null }): { ref: string; where: string } | null {
  if (!options.cursorField) return null;
  const cursor = columns.find((col) => col.name === options.cursorField);
  if (!cursor) throw new ConnectorError(`The cursor field "${options.cursorField}" is not a column of the model's query.`);
  const ref = `q.${quoteIdent(cursor.name)}`;
  const where = options.cursorValue !== undefined && options.cursorValue !== null ? ` WHERE ${ref} >= ${cursorLiteral(cursor.type, options.cursorValue)}` : "";
  return { ref, where };
}

/**
 * ClickHouse's error text, as it writes it after the rows when a query fails once rows were sent
 * (the answer's status is 200 by then, and the body ends normally): `Code: 159, e.displayText() =
 * DB::Exception: …` (18.x–20.x) or `Code: 159. DB::Exception: … (version …)` (newer).
 */
const TRAILING_ERROR = /^Code: \d+(, e\.displayText\(\) = DB::Exception: .*, e\.what\(\) = DB::Exception|\. DB::Exception: .*\(version [^)]*\)\)?)$/s;

function trailingError(line: Buffer): ConnectorError | undefined {
  const text = line.toString("utf8");
  if (!TRAILING_ERROR.test(text)) return undefined;
  return new ConnectorError(`ClickHouse stopped the query midway: ${text.slice(0, 500)}`);
}

/**
 * Streams the rows of `statement` in batches of at most `batchSize`. Cancel (signal) and an early
 * stop abort the request and KILL the query on the server; a pause longer than the query timeout
 * fails the read.
 */
async function* streamRows(c: ClickhouseConfig, statement: string, columns: Column[], batchSize: number, signal?: AbortSignal): AsyncGenerator<Row[]> {
  const settings = await querySettings(c, signal);
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal?.reason);
  if (signal?.aborted) onAbort();
  signal?.addEventListener("abort", onAbort, { once: true });
  const agent = dispatcher(c);
  let finished = false;
  let queryId: string | undefined;
  try {
    const res = await openQuery(c, { sql: statement, settings, signal: controller.signal, timeoutMs: c.queryTimeoutMs }, agent);
    queryId = res.queryId;
    const chunks = idleBounded(res.body, c.queryTimeoutMs, () => controller.abort());
    yield* batchesOf(chunks, columns, batchSize, signal);
    finished = true;
  } finally {
    signal?.removeEventListener("abort", onAbort);
    if (!finished) {
      // Cancelled, failed or abandoned by the consumer: drop the connection and stop the query.
      controller.abort();
      if (queryId) await killQuery(c, queryId);
    }
    await agent.destroy().catch(() => undefined);
  }
}

/** The body's chunks; waiting longer than `ms` for the next one fails the read. */
async function* idleBounded(body: AsyncIterable<Uint8Array>, ms: number, onIdle: () => void): AsyncGenerator<Uint8Array> {
  const iterator = body[Symbol.asyncIterator]();
  try {
    for (;;) {
      const next = await withTimeout(iterator.next(), ms, () => {
        onIdle();
        return new ConnectorError(`ClickHouse sent nothing for ${Math.round(ms / 1000)} s (the query timeout).`);
      });
      if (next.done) return;
      yield next.value;
    }
  } finally {
    await iterator.return?.();
  }
}

async function* batchesOf(body: AsyncIterable<Uint8Array>, columns: Column[], batchSize: number, signal?: AbortSignal): AsyncGenerator<Row[]> {
  let header = 0;
  let batch: Row[] = [];
  const width = columns.length;
  // Each line is parsed once the next one arrived: the last line may be the server's error text,
  // which a one-column row could look like.
  let held: Buffer | undefined;
  const parse = (line: Buffer): Row => {
    const fields = splitFields(line);
    if (fields.length !== width) throw trailingError(line) ?? new ConnectorError(`ClickHouse sent a row of ${fields.length} fields; the query has ${width} columns.`);
    const row: Row = {};
    for (let i = 0; i < width; i++) row[columns[i].name] = fieldValue(columns[i].type, fields[i]);
    return row;
  };
  try {
    for await (const line of byteLines(body)) {
      // The first two lines name the columns and their types (our positional aliases).
      if (header < 2) {
        header++;
        continue;
      }
      if (held) {
        batch.push(parse(held));
        if (batch.length >= batchSize) {
          throwIfAborted(signal);
          yield batch;
          batch = [];
        }
      }
      held = line;
    }
  } catch (err) {
    if (err instanceof IncompleteLineError) throw trailingError(err.line) ?? new ConnectorError(err.message);
    throw err;
  }
  if (held) {
    const error = trailingError(held);
    if (error) throw error;
    batch.push(parse(held));
  }
  if (batch.length > 0) yield batch;
}

async function* read(config: Row, options: ReadOptions): AsyncGenerator<Row[]> {
  const c = clickhouseConfig(config);
  const inner = modelSelect(options.query, "clickhouse");
  const batchSize = Math.max(1, Math.floor(options.batchSize));
  try {
    throwIfAborted(options.signal);
    const columns = await describeQuery(c, inner, await querySettings(c, options.signal), options.signal);
    const statement = readStatement(inner, columns, options);
    yield* streamRows(c, statement, columns, batchSize, options.signal);
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
    for await (const batch of streamRows(c, readStatement(inner, columns, { limit }), columns, size)) rows.push(...batch);
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
};

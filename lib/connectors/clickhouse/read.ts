// Reading a model query from ClickHouse: its columns (DESCRIBE), the statement a read sends, and the
// answer (TabSeparatedWithNamesAndTypes, read as bytes) streamed in batches, as rows (source.ts) or
// as COPY lines (text-rows.ts).
import type { Row } from "../types";
import { throwIfAborted, withTimeout } from "../shared/batching";
import { ConnectorError } from "../shared/errors";
import { subquery } from "../shared/sql";
import type { ClickhouseConfig } from "./config";
import { dispatcher, killQuery, openQuery, querySettings, queryText } from "./http";
import { blockLines, IncompleteLineError, lineBlocks, splitFields, unescapeBytes } from "./tsv";
import { cursorLiteral, fieldValue, isoExpression, isoOnServer, parseType, quoteIdent, utcExpression, type ChType } from "./values";

/** Rows of a small TabSeparated answer, each as its unescaped text fields. */
export function tsvRows(text: string): string[][] {
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => splitFields(Buffer.from(line, "utf8")).map((f) => unescapeBytes(f).toString("utf8")));
}

export interface Column {
  name: string;
  type: ChType;
}

/** The model's columns and types, without running it (DESCRIBE of the query). */
export async function describeQuery(c: ClickhouseConfig, inner: string, settings: Record<string, string>, signal?: AbortSignal): Promise<Column[]> {
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
 * name under a positional alias (no alias can shadow a column), DateTimes in UTC (`isoDateTimes`:
 * those isoOnServer() takes as ISO text, for the pass-through read), the cursor's condition and
 * order, and the format.
 */
export function readStatement(
  inner: string,
  columns: Column[],
  options: { cursorField?: string; cursorValue?: string | null; limit?: number; isoDateTimes?: boolean },
): string {
  const select = columns.map((col, i) => {
    const ref = `q.${quoteIdent(col.name)}`;
    const expr = options.isoDateTimes && isoOnServer(col.type) ? isoExpression(ref) : (utcExpression(ref, col.type) ?? ref);
    return `${expr} AS _c${i}`;
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
export function cursorCondition(columns: Column[], options: { cursorField?: string; cursorValue?: string | null }): { ref: string; where: string } | null {
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
 * How an answer's lines become items: one line at a time, or (optionally) a block of whole lines at
 * once, which may decline (undefined) and leave its lines to `line`.
 */
export interface LineParser<T> {
  line(line: Buffer): T;
  block?(lines: Buffer): T[] | undefined;
}

/**
 * Streams the rows of `statement` in batches of at most `batchSize` and about `batchBytes` of the
 * answer, each line turned into an item by `item` (a row, or a COPY line: text-rows.ts). Cancel
 * (signal) and an early stop abort the request and KILL the query on the server; a pause longer than
 * the query timeout fails the read.
 */
export async function* streamRows<T>(
  c: ClickhouseConfig,
  statement: string,
  item: LineParser<T>,
  batchSize: number,
  signal?: AbortSignal,
  batchBytes = Infinity,
): AsyncGenerator<T[]> {
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
    yield* batchesOf(chunks, item, { lines: batchSize, bytes: batchBytes }, signal);
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

/** A line of `got` fields where the query has `width` columns: the server's error text, or a broken answer. */
export function widthError(line: Buffer, got: number, width: number): ConnectorError {
  return trailingError(line) ?? new ConnectorError(`ClickHouse sent a row of ${got} fields; the query has ${width} columns.`);
}

/** The lines of the answer as rows of the value model. */
export function rowOf(columns: Column[]): LineParser<Row> {
  const width = columns.length;
  return {
    line: (line) => {
      const fields = splitFields(line);
      if (fields.length !== width) throw widthError(line, fields.length, width);
      const row: Row = {};
      for (let i = 0; i < width; i++) row[columns[i].name] = fieldValue(columns[i].type, fields[i]);
      return row;
    },
  };
}

async function* batchesOf<T>(body: AsyncIterable<Uint8Array>, parser: LineParser<T>, most: { lines: number; bytes: number }, signal?: AbortSignal): AsyncGenerator<T[]> {
  let header = 0;
  let batch: T[] = [];
  let bytes = 0;
  // Each block's last line is parsed once the next block arrived: the answer's last line may be the
  // server's error text, which a one-column row could look like.
  let held: Buffer | undefined;
  try {
    for await (const whole of lineBlocks(body)) {
      let block: Buffer | undefined = whole;
      // The first two lines name the columns and their types (our positional aliases).
      while (header < 2 && block) {
        const nl: number = block.indexOf(10);
        header++;
        block = nl === -1 ? undefined : block.subarray(nl + 1);
      }
      if (!block) continue;
      const last = block.lastIndexOf(10);
      const items: T[] = held ? [parser.line(held)] : [];
      const blockBytes = (held?.length ?? 0) + last + 1;
      if (last !== -1) {
        const lines = block.subarray(0, last);
        const parsed = parser.block?.(lines) ?? blockLines(lines).map((line) => parser.line(line));
        for (const item of parsed) items.push(item);
      }
      // A copy: the block shares the chunk's memory, which the stream may reuse.
      held = Buffer.from(last === -1 ? block : block.subarray(last + 1));
      // The block's bytes shared among its items: a batch's size in the answer, whatever an item is.
      const each = items.length > 0 ? blockBytes / items.length : 0;
      for (const item of items) {
        batch.push(item);
        bytes += each;
        if (batch.length >= most.lines || bytes >= most.bytes) {
          throwIfAborted(signal);
          yield batch;
          batch = [];
          bytes = 0;
        }
      }
    }
  } catch (err) {
    if (err instanceof IncompleteLineError) throw trailingError(err.line) ?? new ConnectorError(err.message);
    throw err;
  }
  if (held) {
    const error = trailingError(held);
    if (error) throw error;
    batch.push(parser.line(held));
  }
  if (batch.length > 0) yield batch;
}

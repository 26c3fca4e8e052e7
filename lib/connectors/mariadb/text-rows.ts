// MariaDB source rows as PostgreSQL COPY text (TextRowsSource), for the engine's pass-through path:
// each value is read as the JSON path reads it (mysql2's own parsing, the same BIGINT and date
// handling) and written as the COPY text of that very value, so a destination that takes COPY text
// stores what the JSON path would have stored. Only columns whose value has such a text are
// offered (columns() answers undefined otherwise: JSON, binary, TIME, BIT, YEAR, geometry… take the JSON path).
import { LineBatch } from "@/lib/db/pg-wire/line-batch";
import { Types, type FieldPacket } from "mysql2";
import type { Connection, RowDataPacket } from "mysql2/promise";
import type { ReadOptions, Row, TextColumn, TextRowsSource } from "../types";
import { throwIfAborted, withTimeout } from "../shared/batching";
import { decodeCopyLine } from "../shared/copy-lines";
import { asConnectorError, ConnectorError } from "../shared/errors";
import { copyEscape } from "@/lib/db/pg-wire/text-copy";
import { jsonSafeRow } from "../shared/sql";
import { connectStreaming, described, describeMariaError, incrementalQuery, mariaSettings, withConnection } from "./connection";
import { RowLines } from "./row-lines";


const BINARY_CHARSET = 63;
const UNSIGNED_FLAG = 32;
const STRINGS: number[] = [Types.VARCHAR, Types.VAR_STRING, Types.STRING, Types.ENUM, Types.SET, Types.TINY_BLOB, Types.MEDIUM_BLOB, Types.LONG_BLOB, Types.BLOB];
const INTEGERS: number[] = [Types.TINY, Types.SHORT, Types.LONG, Types.INT24];

/**
 * The PostgreSQL type whose COPY text a column's values are written as (the engine matches it
 * against the destination's column types); undefined when the column has no such text.
 */
function pgTypeOf(f: FieldPacket & { extendedFormat?: string }): string | undefined {
  const type = f.columnType ?? -1;
  if (INTEGERS.includes(type)) return "integer";
  if (type === Types.LONGLONG) return typeof f.flags === "number" && (f.flags & UNSIGNED_FLAG) !== 0 ? "numeric" : "bigint";
  if (type === Types.DECIMAL || type === Types.NEWDECIMAL) return "numeric";
  if (type === Types.FLOAT) return "real";
  if (type === Types.DOUBLE) return "double precision";
  if (type === Types.DATE || type === Types.NEWDATE) return "date";
  if (type === Types.DATETIME) return "timestamp without time zone";
  if (type === Types.TIMESTAMP) return "timestamp with time zone";
  // MariaDB's JSON is LONGTEXT marked in the extended metadata: the JSON path parses it.
  if (STRINGS.includes(type) && f.characterSet !== BINARY_CHARSET && f.extendedFormat === undefined) return "text";
  return undefined;
}

async function columns(config: Row, options: ReadOptions): Promise<TextColumn[] | undefined> {
  return described(config, () =>
    withConnection(config, async (conn: Connection, s) => {
      const { sql, values } = incrementalQuery(options);
      await conn.query("START TRANSACTION READ ONLY");
      try {
        const [, fields] = await conn.query<RowDataPacket[]>({ sql: `${sql} LIMIT 0`, values, timeout: s.queryTimeoutMs });
        const out: TextColumn[] = [];
        for (const f of fields) {
          const type = pgTypeOf(f);
          if (type === undefined) return undefined;
          // oid: MariaDB's protocol type, which decode() needs to rebuild the JSON path's value.
          out.push({ name: f.name, oid: f.columnType ?? -1, type });
        }
        return out;
      } finally {
        await conn.query("ROLLBACK").catch(() => undefined);
      }
    }),
  );
}

type Kind = "text" | "timestamp" | "plain";

/** One row (an array, in column order) as a COPY line: NULL as \N, numbers as their JS text. */
export function lineOf(row: unknown[], kinds: readonly Kind[]): string {
  let out = "";
  for (let i = 0; i < kinds.length; i++) {
    const v = row[i];
    let field: string;
    if (v === null || v === undefined) field = "\\N";
    else if (typeof v === "number") field = String(v);
    else if (typeof v !== "string") throw new ConnectorError("A column changed type while it was read; the run will retry.");
    else if (kinds[i] === "text") field = copyEscape(v);
    // TIMESTAMP is stored in UTC and the session runs in UTC: the instant, with its zone.
    // Escaped as well: mysql2 hands some values (DECIMAL, long BIGINT, dates as strings) on as the
    // server sent them, and a server's tab or line break must not become a field or row of its own.
    else if (kinds[i] === "timestamp") field = `${copyEscape(v)}+00`;
    else field = copyEscape(v);
    out = i === 0 ? field : `${out}\t${field}`;
  }
  return out;
}

function kindsOf(fields: FieldPacket[]): Kind[] {
  return fields.map((f) => {
    const type = pgTypeOf(f);
    if (type === undefined) throw new ConnectorError(`Column "${f.name}" changed type while it was read; the run will retry.`);
    return type === "text" ? "text" : type === "timestamp with time zone" ? "timestamp" : "plain";
  });
}

/**
 * Has mysql2 read the query's rows with `reader()` when it gives one, instead of its own generated
 * parser. mysql2 has no public hook for a row's packet: its Query command reads each row with the
 * object it keeps in `_rowParser`, set once the columns are known. Should a later mysql2 read rows
 * otherwise, this accessor goes unused and rows arrive as arrays, which read() still takes.
 */
function readRowsWith(query: object, reader: () => RowLines | undefined): void {
  let generated: unknown = null;
  Object.defineProperty(query, "_rowParser", {
    configurable: true,
    get: () => reader() ?? generated,
    set: (parser: unknown) => {
      generated = parser;
    },
  });
}

/**
 * The model's rows as COPY lines, in batches. Rows are collected from the query's events, not
 * through a per-row async iterator (half the worker's time per row on the JSON path); the socket
 * pauses while two batches wait, so memory stays bounded.
 */
async function* read(config: Row, options: ReadOptions): AsyncGenerator<LineBatch> {
  const s = mariaSettings(config);
  const { sql, values } = incrementalQuery(options);
  const batchSize = Math.max(1, Math.floor(options.batchSize));
  const batchChars = options.batchChars ?? Infinity;
  // mysql2's own parsing, as the JSON path's (typeCast there only reshapes dates and JSON), with
  // dates as the server's text and rows as arrays.
  const conn = await connectStreaming(s, { typeCast: true, dateStrings: true, rowsAsArray: true }).catch((err: unknown) => {
    throw asConnectorError(err, (e) => describeMariaError(e, s));
  });
  const ready: string[][] = [];
  let batch: string[] = [];
  let chars = 0;
  let kinds: Kind[] = [];
  let rowLines: RowLines | undefined;
  let done = false;
  let failure: unknown;
  let paused = false;
  let wake: (() => void) | undefined;
  const signal = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  try {
    await new Promise<void>((resolve, reject) => conn.query("START TRANSACTION READ ONLY", (err) => (err ? reject(err) : resolve())));
    const query = conn.query({ sql, values });
    readRowsWith(query, () => rowLines);
    query.on("fields", (fields: FieldPacket[]) => {
      try {
        // Cleared first: a later result set whose columns have no text must not be read with the last one's reader.
        rowLines = undefined;
        kinds = kindsOf(fields);
        rowLines = RowLines.of(fields);
      } catch (err) {
        failure = err;
        signal();
      }
    });
    query.on("result", (row: unknown) => {
      if (failure) return;
      try {
        const line = typeof row === "string" ? row : lineOf(row as unknown[], kinds);
        batch.push(line);
        chars += line.length;
      } catch (err) {
        failure = err;
        signal();
        return;
      }
      if (batch.length >= batchSize || chars >= batchChars) {
        ready.push(batch);
        batch = [];
        chars = 0;
        if (ready.length >= 2 && !paused) {
          paused = true;
          conn.pause();
        }
        signal();
      }
    });
    query.on("error", (err: Error) => {
      failure = err;
      signal();
    });
    query.on("end", () => {
      done = true;
      signal();
    });
    for (;;) {
      throwIfAborted(options.signal);
      if (ready.length > 0) {
        const next = ready.shift() as string[];
        if (paused && ready.length < 2) {
          paused = false;
          conn.resume();
        }
        yield LineBatch.ofTexts(next);
        continue;
      }
      if (failure) throw failure;
      if (done) break;
      const before = batch.length;
      const woken = new Promise<void>((resolve) => (wake = resolve));
      // Idle means no row at all within the timeout, as the JSON path's read: rows still coming keep it waiting.
      await withTimeout(woken, s.queryTimeoutMs, () => new ConnectorError(`The query did not return rows within ${s.queryTimeoutMs / 1000} s.`)).catch((err: unknown) => {
        if (batch.length === before && ready.length === 0 && !done && !failure) throw err;
      });
    }
    if (batch.length > 0) yield LineBatch.ofTexts(batch);
  } catch (err) {
    throw asConnectorError(err, (e) => describeMariaError(e, s));
  } finally {
    // destroy(), not end(): end() would wait for an abandoned result set to drain.
    conn.destroy();
  }
}

/** A line back into the row the JSON path's read() gives for it (connection.ts typeCast, supportBigNumbers). */
function decode(line: string, cols: readonly TextColumn[]): Row {
  const row = decodeCopyLine(line, cols, (text, col) => valueOf(text, col.oid));
  return jsonSafeRow(row);
}

function valueOf(text: string, type: number): unknown {
  if (INTEGERS.includes(type) || type === Types.FLOAT || type === Types.DOUBLE) return Number(text);
  if (type === Types.LONGLONG) {
    const n = Number(text);
    return Number.isSafeInteger(n) ? n : text;
  }
  if (type === Types.DATETIME) return text.replace(" ", "T");
  if (type === Types.TIMESTAMP) return `${text.slice(0, -3).replace(" ", "T")}Z`;
  return text;
}

export const mariadbTextRows: TextRowsSource = { columns, read, decode };

// PostgreSQL source rows as COPY text (TextRowsSource): the model query is run as
// `COPY (…) TO STDOUT` inside a read-only transaction and its lines are handed on unparsed. Session
// settings that shape the text (time zone, date and interval styles, float digits, bytea) are fixed,
// so the same row always gives the same line, whatever the server's defaults. The lines stay the
// socket's bytes (line-batch.ts).
import type pg from "pg";
import { copyOutLines } from "@/lib/db/pg-wire/copy-out";
import { LineBatch } from "@/lib/db/pg-wire/line-batch";
import type { ReadOptions, Row, TextColumn, TextRowsSource } from "../types";
import { throwIfAborted, withTimeout } from "../shared/batching";
import { asConnectorError, ConnectorError } from "../shared/errors";
import { copyUnescape } from "@/lib/db/pg-wire/text-copy";
import { copyFields } from "../shared/copy-lines";
import { jsonSafeRow, modelSelect, subquery } from "../shared/sql";
import { beginRead, connect, described, describePgError, jsonSafeTypes, PG_READ_SESSION, pgSettings, quoteIdent, typeNames, withClient } from "./connection";
import { oneStatement } from "./one-statement";

const SESSION =
  "SET LOCAL statement_timeout = 0; SET LOCAL TimeZone = 'UTC'; SET LOCAL DateStyle = 'ISO, MDY'; " +
  `SET LOCAL IntervalStyle = 'postgres'; SET LOCAL extra_float_digits = 1; SET LOCAL bytea_output = 'hex'; ${PG_READ_SESSION}`;

function modelQuery(options: ReadOptions, client: pg.Client): string {
  const inner = modelSelect(options.query, "postgresql");
  let sql = `SELECT * FROM ${subquery(inner)} AS subquery`;
  if (options.cursorField) {
    const cursor = `subquery.${quoteIdent(options.cursorField)}`;
    // COPY takes no parameters: the saved cursor value goes in as a quoted literal.
    if (options.cursorValue !== undefined && options.cursorValue !== null) sql += ` WHERE ${cursor} >= ${client.escapeLiteral(options.cursorValue)}`;
    sql += ` ORDER BY ${cursor}`;
  }
  return sql;
}

async function columns(config: Row, options: ReadOptions): Promise<TextColumn[]> {
  return described(config, () =>
    withClient(config, async (client) => {
      await client.query("BEGIN TRANSACTION READ ONLY");
      try {
        // Extended protocol: one statement, whatever the text holds.
        const { fields } = await client.query(oneStatement(`${modelQuery(options, client)} LIMIT 0`));
        const names = await typeNames(client, [...new Set(fields.map((f) => f.dataTypeID))]);
        return fields.map((f) => ({ name: f.name, oid: f.dataTypeID, type: names.get(f.dataTypeID) ?? String(f.dataTypeID) }));
      } finally {
        await client.query("ROLLBACK").catch(() => undefined);
      }
    }),
  );
}

async function* read(config: Row, options: ReadOptions): AsyncGenerator<LineBatch> {
  const s = pgSettings(config);
  const batchSize = Math.max(1, Math.floor(options.batchSize));
  const batchChars = options.batchChars ?? Infinity;
  let client: pg.Client;
  try {
    client = await connect(s, { clientSideTimeout: false });
  } catch (err) {
    throw asConnectorError(err, (e) => describePgError(e, s));
  }
  try {
    await beginRead(client, options.snapshot);
    await client.query(SESSION);
    const stream = client.query(copyOutLines(`COPY (${modelQuery(options, client)}) TO STDOUT`));
    const chunks = stream[Symbol.asyncIterator]() as AsyncIterator<LineBatch>;
    // The server sends a UTF8 client (pg's default) valid UTF-8 only, whatever its own encoding (a
    // SQL_ASCII database's invalid bytes fail the read): a held line's bytes are its text's UTF-8.
    let parts: { batch: LineBatch; from: number; to: number }[] = [];
    let lines = 0;
    let chars = 0;
    const take = () => {
      const batch = LineBatch.join(parts);
      parts = [];
      lines = 0;
      chars = 0;
      return batch;
    };
    for (;;) {
      throwIfAborted(options.signal);
      // Bounded per chunk on our side: the server's statement timer would span the whole COPY.
      const next = await withTimeout(chunks.next(), s.queryTimeoutMs, () => {
        void client.end().catch(() => undefined);
        return new ConnectorError(`The query did not return more rows within ${s.queryTimeoutMs / 1000} s.`);
      });
      if (next.done) break;
      const piece = next.value;
      let from = 0;
      for (let i = 0; i < piece.length; i++) {
        lines++;
        chars += piece.size(i) - 1;
        if (lines === batchSize || chars >= batchChars) {
          parts.push({ batch: piece, from, to: i + 1 });
          from = i + 1;
          yield take();
        }
      }
      if (from < piece.length) parts.push({ batch: piece, from, to: piece.length });
    }
    if (lines > 0) yield take();
    await client.query("COMMIT");
  } catch (err) {
    throw asConnectorError(err, (e) => describePgError(e, s));
  } finally {
    // Also reached when the consumer stops early: ending the connection ends the COPY with it.
    await client.end().catch(() => undefined);
  }
}

/** Parsers per oid, as read() parses the same columns (jsonSafeTypes), built once per column list. */
const parsersOf = new WeakMap<readonly TextColumn[], ((text: string) => unknown)[]>();

function decode(line: string, cols: readonly TextColumn[]): Row {
  let parsers = parsersOf.get(cols);
  if (!parsers) {
    parsers = cols.map((c) => jsonSafeTypes.getTypeParser(c.oid, "text") as (text: string) => unknown);
    parsersOf.set(cols, parsers);
  }
  const fields = copyFields(line, cols.length);
  // Keys in column order, a repeated name keeping its first place and its last value, as pg builds rows.
  const row: Row = {};
  for (let i = 0; i < cols.length; i++) {
    const text = copyUnescape(fields[i]);
    row[cols[i].name] = text === null ? null : parsers[i](text);
  }
  return jsonSafeRow(row);
}

export const postgresqlTextRows: TextRowsSource = { columns, read, decode };

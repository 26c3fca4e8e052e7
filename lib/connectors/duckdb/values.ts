// DuckDB values as the JSON our other SQL sources produce: 64-bit integers as numbers when exact
// (else their digits), decimals as text, timestamps as ISO 8601 in UTC, nested values as JSON.
import type { DuckDBDataChunk, DuckDBType, DuckDBTypeId } from "@duckdb/node-api";
import type { Row } from "../types";
import { duckdbLib } from "./session";

type Convert = (value: unknown) => unknown;

const bigintValue: Convert = (v) => {
  if (typeof v !== "string") return v;
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : v;
};

/** DuckDB's JSON form of a timestamp is `YYYY-MM-DD hh:mm:ss[.fff][+00]` in the session's zone (UTC). */
const timestampValue: Convert = (v) => {
  if (typeof v !== "string") return v;
  const iso = `${v.replace(" ", "T").replace(/([+-]\d\d)$/, "$1:00")}${/[+-]\d\d(:\d\d)?$|Z$/.test(v) ? "" : "Z"}`;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? v : date.toISOString();
};

/** The library, loaded by the session that produced the chunks these functions read. */
function lib() {
  const loaded = duckdbLib.loaded();
  if (!loaded) throw new Error("DuckDB values are read only from a session's results.");
  return loaded;
}

let converters: Partial<Record<DuckDBTypeId, Convert>> | undefined;

function convertersByType(): Partial<Record<DuckDBTypeId, Convert>> {
  const { DuckDBTypeId: T } = lib();
  return (converters ??= {
    [T.BIGINT]: bigintValue,
    [T.UBIGINT]: bigintValue,
    [T.TIMESTAMP]: timestampValue,
    [T.TIMESTAMP_S]: timestampValue,
    [T.TIMESTAMP_MS]: timestampValue,
    [T.TIMESTAMP_NS]: timestampValue,
    [T.TIMESTAMP_TZ]: timestampValue,
  });
}

/** How to read a result's columns: names and one converter per column (undefined: as DuckDB's JSON gives it). */
export interface ColumnReader {
  names: string[];
  converters: (Convert | undefined)[];
}

export function columnReader(names: string[], types: DuckDBType[]): ColumnReader {
  const byType = convertersByType();
  return { names, converters: types.map((t) => byType[t.typeId]) };
}

/** One column of a chunk, converted. */
export function chunkColumn(chunk: DuckDBDataChunk, reader: ColumnReader, index: number): unknown[] {
  const values = chunk.convertColumnValues(index, lib().JsonDuckDBValueConverter) as unknown[];
  const convert = reader.converters[index];
  return convert ? values.map((v) => (v === null ? null : convert(v))) : values;
}

/** Row `row` of a chunk, skipping the columns in `skip`. */
export function chunkRow(chunk: DuckDBDataChunk, reader: ColumnReader, row: number, skip = -1): Row {
  const values = chunk.convertRowValues(row, lib().JsonDuckDBValueConverter) as unknown[];
  const out: Row = {};
  for (let i = 0; i < values.length; i++) {
    if (i === skip) continue;
    const v = values[i];
    const convert = reader.converters[i];
    out[reader.names[i]] = convert && v !== null ? convert(v) : v;
  }
  return out;
}

/** Every row of a chunk. */
export function chunkRows(chunk: DuckDBDataChunk, reader: ColumnReader): Row[] {
  const rows: Row[] = [];
  for (let i = 0; i < chunk.rowCount; i++) rows.push(chunkRow(chunk, reader, i));
  return rows;
}

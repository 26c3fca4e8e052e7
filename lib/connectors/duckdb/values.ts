// DuckDB values in the value model our other SQL sources follow (shared/values.ts, docs/connectors.md
// "Values"): 64-bit integers as numbers when exact (else their digits), decimals as text, timestamps
// as ISO 8601 in UTC (every microsecond kept), NaN and the infinities as text, intervals as
// PostgreSQL's text, bytes as `\x` hex, JSON with every number exact, nested values as JSON.
import type { DuckDBDataChunk, DuckDBType, DuckDBTypeId, DuckDBValueConverter, Json } from "@duckdb/node-api";
import type { Row } from "../types";
import { parseJsonExact } from "../shared/values";
import { duckdbLib } from "./session";

type Convert = (value: unknown) => unknown;

const bigintValue: Convert = (v) => {
  if (typeof v !== "string") return v;
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : v;
};

/**
 * DuckDB's JSON form of a timestamp is `YYYY-MM-DD hh:mm:ss[.ffffff][+00]` in the session's zone (UTC):
 * ISO 8601 as Date#toISOString prints it, with the microseconds Date would drop kept after the
 * milliseconds (so a value exact to the millisecond reads as it always did).
 */
const timestampValue: Convert = (v) => {
  if (typeof v !== "string") return v;
  const iso = `${v.replace(" ", "T").replace(/([+-]\d\d)$/, "$1:00")}${/[+-]\d\d(:\d\d)?$|Z$/.test(v) ? "" : "Z"}`;
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return v;
  const text = date.toISOString();
  const micros = /\.\d{3}(\d{1,6})(?:[+-]|Z|$)/.exec(v.replace(" ", "T"))?.[1]?.replace(/0+$/, "");
  return micros ? `${text.slice(0, -1)}${micros}Z` : text;
};

/** An interval as PostgreSQL prints it (IntervalStyle postgres): `1 year 2 mons 3 days 04:05:06.789`, `-1 days`. */
export function intervalText(months: number, days: number, micros: bigint): string {
  const parts: string[] = [];
  const unit = (n: number, one: string, many: string) => parts.push(`${n} ${n === 1 ? one : many}`);
  const years = Math.trunc(months / 12);
  const mons = months - years * 12;
  if (years !== 0) unit(years, "year", "years");
  if (mons !== 0) unit(mons, "mon", "mons");
  if (days !== 0) unit(days, "day", "days");
  if (micros !== 0n || parts.length === 0) {
    const negative = micros < 0n;
    const abs = negative ? -micros : micros;
    const seconds = abs / 1_000_000n;
    const fraction = (abs % 1_000_000n).toString().padStart(6, "0").replace(/0+$/, "");
    const hh = (seconds / 3600n).toString().padStart(2, "0");
    const mm = ((seconds / 60n) % 60n).toString().padStart(2, "0");
    const ss = (seconds % 60n).toString().padStart(2, "0");
    parts.push(`${negative ? "-" : ""}${hh}:${mm}:${ss}${fraction ? `.${fraction}` : ""}`);
  }
  return parts.join(" ");
}

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
  return { names, converters: types.map((t) => (t.alias === "JSON" ? jsonValue : byType[t.typeId])) };
}

let converter: DuckDBValueConverter<Json> | undefined;

/**
 * DuckDB's JSON converter, but bytes as `\x` hex (its own text leaves a backslash byte unescaped, so
 * it cannot be read back) and intervals as PostgreSQL's text (its objects no database reads), nested
 * values included.
 */
function valueConverter(): DuckDBValueConverter<Json> {
  const { DuckDBTypeId: T, DuckDBBlobValue, DuckDBIntervalValue, JsonDuckDBValueConverter } = lib();
  return (converter ??= (value, type, self) => {
    if (type.typeId === T.BLOB && value instanceof DuckDBBlobValue) return `\\x${Buffer.from(value.bytes).toString("hex")}`;
    if (type.typeId === T.INTERVAL && value instanceof DuckDBIntervalValue) return intervalText(value.months, value.days, value.micros);
    return JsonDuckDBValueConverter(value, type, self);
  });
}

/** JSON text (DuckDB's JSON type is VARCHAR with the alias JSON) as a value, every number exact. */
const jsonValue: Convert = (v) => (typeof v === "string" ? parseJsonExact(v) : v);

/** One column of a chunk, converted. */
export function chunkColumn(chunk: DuckDBDataChunk, reader: ColumnReader, index: number): unknown[] {
  const values = chunk.convertColumnValues(index, valueConverter()) as unknown[];
  const convert = reader.converters[index];
  return convert ? values.map((v) => (v === null ? null : convert(v))) : values;
}

/** Row `row` of a chunk, skipping the columns in `skip`. */
export function chunkRow(chunk: DuckDBDataChunk, reader: ColumnReader, row: number, skip = -1): Row {
  const values = chunk.convertRowValues(row, valueConverter()) as unknown[];
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

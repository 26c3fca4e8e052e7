// BigQuery's result rows (`{f: [{v}]}`, every scalar as a string) into the value model
// (shared/values.ts, docs/connectors.md "Values"), by the result schema's types: INT64 a number when
// exact else its digits, NUMERIC/BIGNUMERIC their exact text, FLOAT64 a number or NaN/±Infinity as
// text, BOOL a boolean, BYTES `\x` hex, TIMESTAMP ISO 8601 UTC with every microsecond (asked for as
// int64 microseconds), DATE/DATETIME/TIME as BigQuery prints them, JSON parsed exactly, ARRAY a JSON
// array and STRUCT a JSON object of the same rules.
import type { JsonSchema, Row } from "../types";
import { floatValue, parseJsonExact } from "../shared/values";

export interface BqField {
  name: string;
  type: string;
  mode?: "NULLABLE" | "REQUIRED" | "REPEATED";
  fields?: BqField[];
}

interface Cell {
  v: unknown;
}

/** ISO 8601 in UTC from microseconds since the epoch, at least milliseconds, microseconds kept. */
export function timestampFromMicros(text: string): string {
  const micros = BigInt(text);
  const ms = micros / 1000n - (micros % 1000n < 0n ? 1n : 0n);
  const rest = Number(micros - ms * 1000n);
  const iso = new Date(Number(ms)).toISOString();
  return rest === 0 ? iso : `${iso.slice(0, -1)}${String(rest).padStart(3, "0")}Z`;
}

function scalar(type: string, v: string): unknown {
  switch (type) {
    case "INTEGER":
    case "INT64": {
      const n = Number(v);
      return Number.isSafeInteger(n) ? n : v;
    }
    case "FLOAT":
    case "FLOAT64":
      return floatValue(Number(v));
    case "BOOLEAN":
    case "BOOL":
      return v === "true";
    case "BYTES":
      return `\\x${Buffer.from(v, "base64").toString("hex")}`;
    case "TIMESTAMP":
      // Asked for as int64 microseconds; a float of seconds (older answers) loses nothing at ms.
      return /^-?\d+$/.test(v) ? timestampFromMicros(v) : new Date(Number(v) * 1000).toISOString();
    case "JSON":
      return parseJsonExact(v);
    default:
      // NUMERIC, BIGNUMERIC, STRING, DATE, DATETIME, TIME, GEOGRAPHY, INTERVAL, RANGE: exact text.
      return v;
  }
}

function value(field: BqField, v: unknown, repeatedDone = false): unknown {
  if (v === null || v === undefined) return null;
  if (field.mode === "REPEATED" && !repeatedDone) {
    return (v as Cell[]).map((cell) => value(field, cell.v, true));
  }
  if (field.type === "RECORD" || field.type === "STRUCT") return rowOf(field.fields ?? [], v as { f: Cell[] });
  return scalar(field.type, String(v));
}

/** One result row as the value model's row, keyed by the schema's field names. */
export function rowOf(fields: BqField[], row: { f: Cell[] }): Row {
  const out: Row = {};
  for (let i = 0; i < fields.length; i++) out[fields[i].name] = value(fields[i], row.f[i]?.v);
  return out;
}

/** The type as a person reads it: `ARRAY<INT64>`, `STRUCT<a STRING>`. */
export function typeText(field: BqField): string {
  const base = field.type === "RECORD" || field.type === "STRUCT" ? `STRUCT<${(field.fields ?? []).map((f) => `${f.name} ${typeText(f)}`).join(", ")}>` : field.type;
  return field.mode === "REPEATED" ? `ARRAY<${base}>` : base;
}

/** JSON Schema of a column from its INFORMATION_SCHEMA data_type (`INT64`, `NUMERIC(10,2)`, `ARRAY<STRING>`). */
export function columnSchema(dataType: string, nullable: boolean): JsonSchema {
  const t = dataType.toUpperCase();
  let schema: JsonSchema;
  if (t.startsWith("ARRAY")) schema = { type: "array" };
  else if (t.startsWith("STRUCT")) schema = { type: "object" };
  else if (t === "JSON") schema = {};
  else if (t === "INT64") schema = { type: ["integer", "string"] };
  else if (t === "FLOAT64") schema = { type: ["number", "string"] };
  else if (t === "BOOL") schema = { type: "boolean" };
  else if (t === "TIMESTAMP" || t === "DATETIME") schema = { type: "string", format: "date-time" };
  else if (t === "DATE") schema = { type: "string", format: "date" };
  else schema = { type: "string" };
  if (nullable && schema.type !== undefined) schema = { ...schema, type: [...[schema.type].flat(), "null"] };
  return { ...schema, $comment: dataType };
}

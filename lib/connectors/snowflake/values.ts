// Snowflake's SQL API answers every value as a string (its `jsonv2` format), typed by the result's
// rowType: FIXED as decimal text, REAL as text (`NaN`, `inf`), DATE as days since 1970-01-01, TIME
// and TIMESTAMP_NTZ/LTZ as seconds since the epoch with a fraction, TIMESTAMP_TZ as those seconds
// (UTC), a space and the offset in minutes plus 1440, BINARY as hex, VARIANT/OBJECT/ARRAY as JSON
// text. Here they become the value model's values (shared/values.ts, docs/connectors.md "Values").
import { parseJsonExact } from "../shared/values";
import { cellRowsReader, type CellConverter } from "../shared/statement-api";
import type { JsonSchema } from "../types";

export interface SnowflakeColumn {
  name: string;
  type: string;
  scale?: number | null;
  precision?: number | null;
  nullable?: boolean;
}

type Convert = CellConverter;

/** An integer: a number when exact as one, else its digits. */
export function integerValue(text: string): number | string {
  const n = Number(text);
  return Number.isSafeInteger(n) && String(n) === text.replace(/^\+/, "") ? n : text;
}

/** Nanoseconds since the epoch of `-?seconds[.fraction]`. */
function epochNanos(text: string): bigint | undefined {
  const m = /^(-?)(\d+)(?:\.(\d{1,9}))?$/.exec(text.trim());
  if (!m) return undefined;
  const nanos = BigInt(m[2]) * 1_000_000_000n + BigInt((m[3] ?? "").padEnd(9, "0") || "0");
  return m[1] ? -nanos : nanos;
}

/** `YYYY-MM-DDThh:mm:ss` and the nanoseconds of the second (0..999999999) of an epoch in nanoseconds. */
function utcParts(nanos: bigint): { seconds: string; fraction: bigint } {
  let ms = nanos / 1_000_000n;
  if (nanos < 0n && ms * 1_000_000n !== nanos) ms -= 1n;
  const date = new Date(Number(ms));
  const whole = date.toISOString().slice(0, 19);
  const secondMs = ((ms % 1000n) + 1000n) % 1000n;
  return { seconds: whole, fraction: secondMs * 1_000_000n + (nanos - ms * 1_000_000n) };
}

/** Fraction digits (9) without trailing zeros, at least `min` digits. */
function fractionText(fraction: bigint, min: number): string {
  const digits = fraction.toString().padStart(9, "0").replace(/0+$/, "");
  const kept = digits.padEnd(min, "0");
  return kept ? `.${kept}` : "";
}

/** A timestamp with a zone: ISO 8601 in UTC, at least milliseconds, every nanosecond Snowflake keeps. */
const instantValue: Convert = (text) => {
  const nanos = epochNanos(text.split(" ")[0]);
  if (nanos === undefined) return text;
  const { seconds, fraction } = utcParts(nanos);
  return `${seconds}${fractionText(fraction, 3)}Z`;
};

/** A wall-clock timestamp (NTZ): `YYYY-MM-DDThh:mm:ss[.fffffffff]`, no zone, as PostgreSQL prints timestamp. */
const wallClockValue: Convert = (text) => {
  const nanos = epochNanos(text);
  if (nanos === undefined) return text;
  const { seconds, fraction } = utcParts(nanos);
  return `${seconds}${fractionText(fraction, 0)}`;
};

const dateValue: Convert = (text) => {
  if (!/^-?\d+$/.test(text)) return text;
  return new Date(Number(text) * 86_400_000).toISOString().slice(0, 10);
};

const timeValue: Convert = (text) => {
  const nanos = epochNanos(text);
  if (nanos === undefined) return text;
  const { seconds, fraction } = utcParts(nanos);
  return `${seconds.slice(11)}${fractionText(fraction, 0)}`;
};

const realValue: Convert = (text) => {
  const lower = text.toLowerCase();
  if (lower === "nan") return "NaN";
  if (lower === "inf" || lower === "infinity") return "Infinity";
  if (lower === "-inf" || lower === "-infinity") return "-Infinity";
  const n = Number(text);
  return Number.isFinite(n) ? n : text;
};

const jsonValue: Convert = (text) => {
  try {
    return parseJsonExact(text);
  } catch {
    return text;
  }
};

/** How one column's strings become values. */
export function snowflakeConverter(column: SnowflakeColumn): Convert | undefined {
  switch (column.type.toLowerCase()) {
    case "fixed":
    case "number":
      return (column.scale ?? 0) === 0 ? integerValue : undefined;
    case "real":
    case "float":
      return realValue;
    case "boolean":
      return (t) => t === "true" || t === "1" || t === "TRUE";
    case "date":
      return dateValue;
    case "time":
      return timeValue;
    case "timestamp_ntz":
      return wallClockValue;
    case "timestamp_ltz":
    case "timestamp_tz":
      return instantValue;
    case "binary":
      return (t) => `\\x${t.toLowerCase()}`;
    case "variant":
    case "object":
    case "array":
    case "map":
      return jsonValue;
    default:
      // TEXT, DECFLOAT and decimals with a scale (exact text), GEOGRAPHY, VECTOR…: the server's text.
      return undefined;
  }
}

/** Rows of one partition (arrays of strings and nulls) as objects of the value model. */
export function rowsReader(columns: SnowflakeColumn[]): (data: (string | null)[][]) => Record<string, unknown>[] {
  return cellRowsReader(
    columns.map((c) => c.name),
    columns.map(snowflakeConverter),
  );
}

/** The type a preview shows: `NUMBER(38,0)`, `TIMESTAMP_TZ`, `TEXT`. */
export function snowflakeTypeName(column: SnowflakeColumn): string {
  const type = column.type.toUpperCase();
  if (type === "FIXED") return `NUMBER(${column.precision ?? 38},${column.scale ?? 0})`;
  return type;
}

/** JSON Schema of a column discovered from information_schema (DATA_TYPE, NUMERIC_SCALE). */
export function snowflakeColumnSchema(dataType: string, scale: number | null, nullable: boolean): JsonSchema {
  const t = dataType.toUpperCase();
  let schema: JsonSchema;
  if (t === "NUMBER" || t === "FIXED") schema = (scale ?? 0) === 0 ? { type: ["integer", "string"] } : { type: "string" };
  else if (t === "FLOAT" || t === "REAL" || t === "DOUBLE") schema = { type: ["number", "string"] };
  else if (t === "BOOLEAN") schema = { type: "boolean" };
  else if (t === "DATE") schema = { type: "string", format: "date" };
  else if (t.startsWith("TIMESTAMP")) schema = { type: "string", format: "date-time" };
  else if (t === "VARIANT") schema = {};
  else if (t === "OBJECT" || t === "MAP") schema = { type: "object" };
  else if (t === "ARRAY") schema = { type: "array" };
  else schema = { type: "string" };
  if (nullable && schema.type !== undefined) schema = { ...schema, type: [...[schema.type].flat(), "null"] };
  return { ...schema, $comment: t };
}

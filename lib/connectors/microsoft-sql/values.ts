// From the value model (shared/values.ts) to SQL Server parameters: each value is bound with a type
// that holds it exactly, or refused with a sentence naming the column and the value when the column's
// type cannot hold it (NaN in a float, 1.5 in an int, "infinity" in a datetime2). Exact decimals,
// 64-bit integers and instants travel as text and are converted by the server (CAST to the column's
// own type), so no JavaScript number bends them.
import { Buffer } from "node:buffer";
import { exactJson, JsonNumber, markedNumber, scalarText } from "../shared/values";
import type { MssqlParamType } from "./driver";

/** A value ready to bind: its parameter type and value, and the cast the SQL wraps it in, if any. */
export interface BoundValue {
  type: MssqlParamType;
  value: string | number | boolean | Buffer | null;
  /** The column's type when the server converts the text (`decimal(10,2)`); undefined: bound as it is. */
  cast?: string;
}

/** Thrown for a value the column cannot hold; the message is the record's error. */
export class ValueRefused extends Error {}

const INT_RANGES: Record<string, [number, number]> = {
  tinyint: [0, 255],
  smallint: [-32768, 32767],
  int: [-2147483648, 2147483647],
};
const BIGINT_MIN = -(2n ** 63n);
const BIGINT_MAX = 2n ** 63n - 1n;
const INTEGER_TEXT = /^-?(0|[1-9][0-9]*)$/;
const DECIMAL_TEXT = /^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/;
const HEX_BYTES = /^\\x(?:[0-9a-fA-F]{2})*$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const ISO_DATETIME = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(\.\d{1,7})?(Z|[+-]\d{2}:?\d{2})?$/;
const ISO_TIME = /^\d{2}:\d{2}(:\d{2}(\.\d{1,7})?)?$/;

/** The base type of a column type as discovery writes it: `decimal(10,2)` → `decimal`. */
export const baseType = (type: string) => type.replace(/\(.*$/, "").trim().toLowerCase();

/** A number or numeric text as its exact text; undefined when the value is not a number. */
function numericText(value: unknown): string | undefined {
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : undefined;
  if (value instanceof JsonNumber) return value.text;
  if (typeof value === "string") {
    const text = markedNumber(value) ?? value.trim();
    return DECIMAL_TEXT.test(text) ? text : undefined;
  }
  return undefined;
}

function show(value: unknown): string {
  const text = typeof value === "string" ? (markedNumber(value) ?? value) : typeof value === "number" ? String(value) : exactJson(value);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

function refuse(column: string, type: string, value: unknown, why = ""): never {
  throw new ValueRefused(`Column "${column}" (${type}) cannot hold ${show(value)}${why}.`);
}

/** An instant as UTC text SQL Server's datetime2 reads in any language setting (`2026-01-02T03:04:05.1234567`). */
function utcDatetime(text: string): string | undefined {
  const m = ISO_DATETIME.exec(text);
  if (!m) return undefined;
  const [, day, time, fraction = "", zone] = m;
  const local = new Date(`${day}T${time}Z`);
  if (Number.isNaN(local.getTime()) || local.toISOString().slice(0, 19) !== `${day}T${time}`) return undefined;
  let offsetMinutes = 0;
  if (zone && zone !== "Z") {
    const digits = zone.replace(":", "");
    offsetMinutes = (zone[0] === "-" ? -1 : 1) * (Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5)));
  }
  const utc = new Date(local.getTime() - offsetMinutes * 60_000);
  return `${utc.toISOString().slice(0, 19)}${fraction}`;
}

/** How `value` is bound for a column `column` of SQL Server type `type`; throws ValueRefused. */
export function bindValue(column: string, type: string, value: unknown): BoundValue {
  const base = baseType(type);
  if (value === null || value === undefined) return { type: "NVarChar", value: null, ...(needsCast(base) ? { cast: type } : {}) };
  if (base in INT_RANGES) {
    const text = numericText(value);
    const n = text === undefined ? NaN : Number(text);
    const [min, max] = INT_RANGES[base];
    if (text === undefined || !Number.isInteger(n) || n < min || n > max) refuse(column, type, value);
    return { type: "Int", value: n };
  }
  if (base === "bigint") {
    const text = numericText(value);
    if (text === undefined || !INTEGER_TEXT.test(text)) refuse(column, type, value);
    const n = BigInt(text);
    if (n < BIGINT_MIN || n > BIGINT_MAX) refuse(column, type, value, " (beyond a 64-bit integer)");
    // tedious writes BigInt parameters from their text through a JavaScript bigint: exact.
    return { type: "BigInt", value: text };
  }
  if (base === "decimal" || base === "numeric" || base === "money" || base === "smallmoney") {
    const text = numericText(value);
    if (text === undefined) refuse(column, type, value, typeof value === "number" ? " (SQL Server decimals have no NaN or infinity)" : "");
    return { type: "NVarChar", value: text, cast: type };
  }
  if (base === "float" || base === "real") {
    if (typeof value === "number" && !Number.isFinite(value)) refuse(column, type, value, " (SQL Server floats have no NaN or infinity)");
    const text = numericText(value);
    if (text === undefined) refuse(column, type, value, /^(nan|-?infinity)$/i.test(String(value)) ? " (SQL Server floats have no NaN or infinity)" : "");
    return { type: base === "real" ? "Real" : "Float", value: Number(text) };
  }
  if (base === "bit") {
    if (typeof value === "boolean") return { type: "Bit", value };
    if (value === 0 || value === 1 || value === "0" || value === "1") return { type: "Bit", value: Number(value) === 1 };
    if (value === "true" || value === "false") return { type: "Bit", value: value === "true" };
    refuse(column, type, value);
  }
  if (base === "binary" || base === "varbinary" || base === "image") {
    if (typeof value === "string" && HEX_BYTES.test(value)) return { type: "VarBinary", value: Buffer.from(value.slice(2), "hex") };
    refuse(column, type, value, " (bytes travel as \\x and hex digits)");
  }
  if (base === "date") {
    if (typeof value === "string" && ISO_DATE.test(value)) return { type: "NVarChar", value, cast: type };
    refuse(column, type, value);
  }
  if (base === "time") {
    if (typeof value === "string" && ISO_TIME.test(value)) return { type: "NVarChar", value, cast: type };
    refuse(column, type, value);
  }
  if (base === "datetimeoffset") {
    // The offset is kept: datetimeoffset holds it.
    if (typeof value === "string" && ISO_DATETIME.test(value) && utcDatetime(value)) return { type: "NVarChar", value: value.replace(" ", "T"), cast: type };
    refuse(column, type, value);
  }
  if (base === "datetime2" || base === "datetime" || base === "smalldatetime") {
    const utc = typeof value === "string" ? utcDatetime(value) : undefined;
    if (utc === undefined) refuse(column, type, value, typeof value === "string" && /infinity/i.test(value) ? " (SQL Server dates have no infinity)" : "");
    return { type: "NVarChar", value: utc, cast: type };
  }
  // Text, JSON (SQL Server keeps JSON in nvarchar), xml, uniqueidentifier and the rest: exact text.
  const text = typeof value === "object" && !(value instanceof JsonNumber) ? exactJson(value) : scalarText(value);
  return { type: "NVarChar", value: text, ...(needsCast(base) ? { cast: type } : {}) };
}

/** Types a text parameter reaches only through a CAST (the rest take nvarchar as it is). */
function needsCast(base: string): boolean {
  return !["nvarchar", "varchar", "nchar", "char", "text", "ntext", "sysname"].includes(base);
}

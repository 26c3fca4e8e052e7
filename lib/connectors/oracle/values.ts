// From the value model (shared/values.ts) to Oracle binds, and from Oracle's values back. Writes bind
// every value as text (or bytes) and convert it in SQL with an explicit format, so exact numbers,
// 64-bit integers and instants arrive exactly and no NLS setting changes them; a value the column's
// type cannot hold is refused with a sentence naming the column and the value. Reads give exact
// NUMBERs as text (integers as numbers when a JavaScript number holds them), instants in ISO 8601.
import { Buffer } from "node:buffer";
import { exactJson, floatValue, JsonNumber, markedNumber, scalarText } from "../shared/values";
import type { OracleBindDef, OracleColumn } from "./driver";

/** Thrown for a value the column cannot hold; the message is the record's error. */
export class ValueRefused extends Error {}

const NUMBER_TEXT = /^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/;
const HEX_BYTES = /^\\x(?:[0-9a-fA-F]{2})*$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const ISO_DATETIME = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}(?::?\d{2})?)?$/;

export const TIMESTAMP_FORMAT = 'YYYY-MM-DD"T"HH24:MI:SS.FF9';
export const TIMESTAMP_TZ_FORMAT = 'YYYY-MM-DD"T"HH24:MI:SS.FF9TZH:TZM';

/** The family of an Oracle column type, as ALL_TAB_COLUMNS or the driver names it. */
export type OracleKind = "number" | "float" | "date" | "timestamp" | "timestamptz" | "text" | "clob" | "bytes" | "blob" | "other";

export function kindOf(type: string): OracleKind {
  const t = type.toUpperCase();
  if (/^(NUMBER|INTEGER|DECIMAL|NUMERIC|SMALLINT|INT)\b/.test(t) || t === "FLOAT" || /^FLOAT\(/.test(t)) return "number";
  if (/^BINARY_(DOUBLE|FLOAT)/.test(t)) return "float";
  if (t === "DATE") return "date";
  if (/^TIMESTAMP.*WITH (LOCAL )?TIME ZONE/.test(t)) return "timestamptz";
  if (/^TIMESTAMP/.test(t)) return "timestamp";
  if (/^N?CLOB/.test(t) || t === "JSON") return "clob";
  if (/^(N?VARCHAR2?|N?CHAR|LONG)\b/.test(t)) return "text";
  if (t === "BLOB") return "blob";
  if (/^(RAW|LONG RAW)/.test(t)) return "bytes";
  return "other";
}

function show(value: unknown): string {
  const text = typeof value === "string" ? (markedNumber(value) ?? value) : typeof value === "number" ? String(value) : exactJson(value);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

function refuse(column: string, type: string, value: unknown, why = ""): never {
  throw new ValueRefused(`Column "${column}" (${type}) cannot hold ${show(value)}${why}.`);
}

/** An instant's parts: day, time, 9-digit fraction, and its offset (`+00:00` when it has none). */
function instant(text: string): { day: string; time: string; fraction: string; offset: string } | undefined {
  const m = ISO_DATETIME.exec(text);
  if (!m) return undefined;
  const [, day, time, fraction = "", zone] = m;
  const probe = new Date(`${day}T${time}Z`);
  if (Number.isNaN(probe.getTime()) || probe.toISOString().slice(0, 19) !== `${day}T${time}`) return undefined;
  let offset = "+00:00";
  if (zone && zone !== "Z") {
    const digits = zone.replace(":", "");
    offset = `${digits.slice(0, 3)}:${digits.slice(3, 5) || "00"}`;
  }
  return { day, time, fraction: fraction.padEnd(9, "0"), offset };
}

/** An instant as UTC text in TIMESTAMP_FORMAT (a zone-less column holds the UTC wall clock). */
function utcText(p: { day: string; time: string; fraction: string; offset: string }): string {
  const sign = p.offset[0] === "-" ? -1 : 1;
  const minutes = sign * (Number(p.offset.slice(1, 3)) * 60 + Number(p.offset.slice(4, 6)));
  const utc = new Date(Date.parse(`${p.day}T${p.time}Z`) - minutes * 60_000);
  return `${utc.toISOString().slice(0, 19)}.${p.fraction}`;
}

function numericText(value: unknown): string | undefined {
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : undefined;
  if (value instanceof JsonNumber) return value.text;
  if (typeof value === "string") {
    const text = markedNumber(value) ?? value.trim();
    return NUMBER_TEXT.test(text) ? text : undefined;
  }
  return undefined;
}

/** A bound value and the SQL expression that converts its placeholder to the column's type. */
export interface OracleBound {
  value: string | Buffer | null;
  /** `TO_NUMBER(:1)`, `TO_TIMESTAMP(:2, '…')`, or the placeholder itself. */
  expression(placeholder: string): string;
  bind: OracleBindDef["type"];
}

const plain = (placeholder: string) => placeholder;

/** How `value` is bound for column `column` of Oracle type `type`; throws ValueRefused. */
export function bindValue(column: string, type: string, value: unknown): OracleBound {
  const kind = kindOf(type);
  const bindOf = (k: OracleKind): OracleBindDef["type"] => (k === "clob" ? "CLOB" : k === "blob" ? "BLOB" : k === "bytes" ? "BUFFER" : "STRING");
  const toNumber = (p: string) => `TO_NUMBER(${p})`;
  const toFloat = (p: string) => `TO_BINARY_DOUBLE(${p})`;
  const toTimestamp = (p: string) => `TO_TIMESTAMP(${p}, '${TIMESTAMP_FORMAT}')`;
  const toTimestampTz = (p: string) => `TO_TIMESTAMP_TZ(${p}, '${TIMESTAMP_TZ_FORMAT}')`;
  const expressions: Partial<Record<OracleKind, (p: string) => string>> = { number: toNumber, float: toFloat, date: toTimestamp, timestamp: toTimestamp, timestamptz: toTimestampTz };
  const expression = expressions[kind] ?? plain;
  if (value === null || value === undefined) return { value: null, expression, bind: bindOf(kind) };
  switch (kind) {
    case "number": {
      const text = numericText(value);
      if (text === undefined) refuse(column, type, value, typeof value === "number" || /^(nan|-?infinity)$/i.test(String(value)) ? " (Oracle NUMBER has no NaN or infinity)" : "");
      return { value: text, expression, bind: "STRING" };
    }
    case "float": {
      // BINARY_DOUBLE holds NaN and the infinities: Oracle reads them as NaN, INF and -INF.
      if (typeof value === "number" && !Number.isFinite(value)) return { value: Number.isNaN(value) ? "NaN" : value > 0 ? "INF" : "-INF", expression, bind: "STRING" };
      const special = typeof value === "string" ? ({ NaN: "NaN", Infinity: "INF", "-Infinity": "-INF" } as Record<string, string>)[value] : undefined;
      if (special) return { value: special, expression, bind: "STRING" };
      const text = numericText(value);
      if (text === undefined) refuse(column, type, value);
      return { value: text, expression, bind: "STRING" };
    }
    case "date":
    case "timestamp": {
      const text = typeof value === "string" ? value : "";
      const parts = ISO_DATE.test(text) ? instant(`${text}T00:00:00`) : instant(text);
      if (!parts) refuse(column, type, value, /infinity/i.test(text) ? " (Oracle dates have no infinity)" : "");
      return { value: utcText(parts), expression, bind: "STRING" };
    }
    case "timestamptz": {
      const parts = typeof value === "string" ? instant(value) : undefined;
      if (!parts) refuse(column, type, value, typeof value === "string" && /infinity/i.test(value) ? " (Oracle timestamps have no infinity)" : "");
      return { value: `${parts.day}T${parts.time}.${parts.fraction}${parts.offset}`, expression, bind: "STRING" };
    }
    case "bytes":
    case "blob":
      if (typeof value === "string" && HEX_BYTES.test(value)) return { value: Buffer.from(value.slice(2), "hex"), expression, bind: bindOf(kind) };
      refuse(column, type, value, " (bytes travel as \\x and hex digits)");
    // falls through: refuse() never returns
    default: {
      // Text, JSON documents (kept as their exact JSON text) and the rest.
      const text = typeof value === "object" && !(value instanceof JsonNumber) ? exactJson(value) : scalarText(value);
      return { value: text, expression, bind: bindOf(kind) };
    }
  }
}

/** A fetched value as the value model carries it (see the header); `column` is the driver's description. */
export function readValue(column: OracleColumn, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  const kind = kindOf(column.type);
  if (kind === "number" && typeof value === "string") {
    // NUMBER(p, 0) and integers of a plain NUMBER: a number when exact, else the digits.
    if (/^-?\d+$/.test(value)) {
      const n = Number(value);
      return Number.isSafeInteger(n) ? n : value;
    }
    return value.startsWith(".") ? `0${value}` : value.startsWith("-.") ? `-0${value.slice(1)}` : value;
  }
  if (kind === "float" && typeof value === "number") return floatValue(value);
  if (kind === "timestamptz" && typeof value === "string") {
    const parts = instant(value);
    return parts ? `${trimFraction(utcText(parts))}Z` : value;
  }
  if ((kind === "timestamp" || kind === "date") && typeof value === "string") return trimFraction(value);
  if (Buffer.isBuffer(value)) return `\\x${value.toString("hex")}`;
  return value;
}

/** `…:05.120000000` → `…:05.12`, `…:05.000000000` → `…:05`: a fraction's trailing zeros say nothing. */
function trimFraction(text: string): string {
  return text.replace(/(\.\d*?)0+$/, "$1").replace(/\.$/, "");
}

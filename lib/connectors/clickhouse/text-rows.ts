// ClickHouse source rows as PostgreSQL COPY text (TextRowsSource), for the engine's pass-through path.
// TabSeparated is nearly COPY text already: integers, decimals, UUIDs and most strings go as they
// came; each other field is made the text the JSON path's PostgreSQL destination would write for its
// value (shared/values.ts:scalarText, exactJson), computed from the same value (values.ts:fieldValue),
// so a line holds what the JSON path would have written. Each column is labelled with the
// PostgreSQL type its text is exact for (pass-through/plan.ts:sameText pairs it with the destination's).
import { LineBatch } from "@/lib/db/pg-wire/line-batch";
import { isUtf8 } from "node:buffer";
import type { ReadOptions, Row, TextColumn, TextRowsSource } from "../types";
import { throwIfAborted } from "../shared/batching";
import { decodeCopyLine } from "../shared/copy-lines";
import { asConnectorError } from "../shared/errors";
import { COPY_NULL, copyEscape } from "@/lib/db/pg-wire/text-copy";
import { modelSelect } from "../shared/sql";
import { exactJson, floatValue, scalarText } from "../shared/values";
import { clickhouseConfig } from "./config";
import { describeClickhouseError, querySettings } from "./http";
import { describeQuery, readStatement, streamRows, widthError, type Column, type LineParser } from "./read";
import { isNullField, splitFields, unescapeBytes } from "./tsv";
import { baseType, fieldValue, isoDateTime, isoOnServer, scalarValue, textOrHex, type ChType } from "./values";

/**
 * How a field becomes COPY text. same: TabSeparated's text is already it (digits, decimals, UUIDs,
 * booleans); text: a string, the same unless bytes or escapes say otherwise; float, date, datetime:
 * rewritten as the JSON path's text of the value; json: the value's exact JSON (any other type).
 */
type Kind = "same" | "text" | "float" | "date" | "datetime" | "json";

/** A ClickHouse type's PostgreSQL label and how its fields convert. */
export function textKind(type: ChType): { label: string; kind: Kind } {
  const name = baseType(type).name;
  if (/^(Int8|UInt8|Int16)$/.test(name)) return { label: "smallint", kind: "same" };
  if (/^(UInt16|Int32)$/.test(name)) return { label: "integer", kind: "same" };
  // Beyond bigint's range the destination refuses the batch, as it refuses the JSON path's digits.
  if (/^U?Int(32|64|128|256)$/.test(name)) return { label: "bigint", kind: "same" };
  if (name === "Float32") return { label: "real", kind: "float" };
  if (name === "Float64") return { label: "double precision", kind: "float" };
  if (/^Decimal(32|64|128|256)?$/.test(name)) return { label: "numeric", kind: "same" };
  if (name === "Bool") return { label: "boolean", kind: "same" };
  if (name === "UUID") return { label: "uuid", kind: "same" };
  if (name === "Date" || name === "Date32") return { label: "date", kind: "date" };
  if (name === "DateTime" || name === "DateTime64") return { label: "timestamp with time zone", kind: "datetime" };
  if (/^(String|FixedString|Enum8|Enum16|IPv4|IPv6)$/.test(name)) return { label: "text", kind: "text" };
  // Arrays, maps, tuples, JSON and the rest: as the JSON path writes them into a jsonb column.
  return { label: "jsonb", kind: "json" };
}

/** Escapes TabSeparated and COPY text read alike (`\'` is `'` in both); any other sends the field the slow way. */
const SAME_ESCAPES = new Set([0x62, 0x66, 0x6e, 0x72, 0x74, 0x76, 0x5c, 0x27, 0x4e]);

/** Whether each backslash of the line starts an escape that COPY reads as ClickHouse wrote it. */
function escapesAgree(line: Buffer): boolean {
  for (let i = line.indexOf(92); i !== -1; i = line.indexOf(92, i + 2)) if (!SAME_ESCAPES.has(line[i + 1])) return false;
  return true;
}

/** A field of a non-string kind, already text, as COPY text (`\N` stays NULL). */
function convertText(kind: Kind, type: ChType, field: string): string {
  if (field === COPY_NULL || kind === "same" || kind === "text") return field;
  if (kind === "float") return scalarText(scalarValue(type, Buffer.from(field, "latin1")));
  if (kind === "date") return field === "0000-00-00" ? "1970-01-01" : field;
  if (kind === "datetime") return isoDateTime(field);
  return jsonField(type, Buffer.from(field, "utf8"));
}

function jsonField(type: ChType, raw: Buffer): string {
  const value = fieldValue(type, raw);
  return value === null ? COPY_NULL : copyEscape(exactJson(value));
}

/** One field from its raw bytes: the slow way, for lines with bytes or escapes COPY reads otherwise. */
function convertBytes(kind: Kind, type: ChType, raw: Buffer): string {
  if (isNullField(raw)) return COPY_NULL;
  if (kind === "text") return copyEscape(textOrHex(unescapeBytes(raw)));
  if (kind === "json") return jsonField(type, raw);
  // Unescaped, a field may hold a tab or a line break: escaped again, it stays one field of one line.
  return copyEscape(convertText(kind, type, unescapeBytes(raw).toString("utf8")));
}

/**
 * The converter of one answer's lines into COPY lines of `columns`, line by line or a block at once.
 * `isoDateTimes`: the statement printed those columns as ISO text already (read.ts:readStatement).
 */
export function copyLineOf(columns: readonly Column[], options: { isoDateTimes?: boolean } = {}): LineParser<string> {
  const width = columns.length;
  const kinds = columns.map((c) => (options.isoDateTimes && isoOnServer(c.type) ? "same" : textKind(c.type).kind));
  const rewritten = kinds.flatMap((k, i) => (k === "same" || k === "text" ? [] : [i]));
  // The line's pieces, joined flat once (a line is held while its batch is sent: a tree of `+=`
  // strings would be copied by each young collection it lived through).
  const parts = new Array<string>(2 * rewritten.length + 1).fill("");
  /** The line with its rewritten fields replaced; the rest copied in slices (a split and join cost twice as much). */
  const rewrite = (text: string): string => {
    let copied = 0;
    let start = 0;
    let r = 0;
    for (let i = 0; ; i++) {
      const tab = text.indexOf("\t", start);
      const end = tab === -1 ? text.length : tab;
      if (i === rewritten[r]) {
        parts[2 * r] = text.slice(copied, start);
        parts[2 * r + 1] = convertText(kinds[i], columns[i].type, text.slice(start, end));
        copied = end;
        r++;
      }
      if (tab === -1 || i === width - 1) {
        if (tab !== -1 || i !== width - 1) throw widthError(Buffer.from(text, "utf8"), text.split("\t").length, width);
        if (r === 0) return text;
        parts[2 * r] = text.slice(copied);
        return parts.join("");
      }
      start = tab + 1;
    }
  };
  // Fast: valid UTF-8 without NUL and with only shared escapes; the fields other than strings and
  // numbers are rewritten. A block of lines is checked and decoded at once (a few native calls per
  // chunk instead of per line); a block that fails goes line by line, so only its odd lines go slow.
  const fast = (bytes: Buffer) => bytes.indexOf(0) === -1 && escapesAgree(bytes) && isUtf8(bytes);
  return {
    line: (line) => {
      if (fast(line)) return rewrite(line.toString("utf8"));
      const fields = splitFields(line);
      if (fields.length !== width) throw widthError(line, fields.length, width);
      return fields.map((f, i) => convertBytes(kinds[i], columns[i].type, f)).join("\t");
    },
    block: (lines) => (fast(lines) ? lines.toString("utf8").split("\n").map(rewrite) : undefined),
  };
}

async function columns(config: Row, options: ReadOptions): Promise<TextColumn[]> {
  const c = clickhouseConfig(config);
  try {
    const described = await describeQuery(c, modelSelect(options.query, "clickhouse"), await querySettings(c, options.signal), options.signal);
    return described.map((col) => ({ name: col.name, oid: 0, type: textKind(col.type).label }));
  } catch (err) {
    throw asConnectorError(err, (e) => describeClickhouseError(e, c));
  }
}

/** The same statement as the source's read (UTC DateTimes, the cursor's order), its lines as COPY text. */
async function* read(config: Row, options: ReadOptions): AsyncGenerator<LineBatch> {
  const c = clickhouseConfig(config);
  const inner = modelSelect(options.query, "clickhouse");
  const batchSize = Math.max(1, Math.floor(options.batchSize));
  try {
    throwIfAborted(options.signal);
    const described = await describeQuery(c, inner, await querySettings(c, options.signal), options.signal);
    const iso = { isoDateTimes: true };
    const rows = streamRows(c, readStatement(inner, described, { ...options, ...iso }), copyLineOf(described, iso), batchSize, options.signal, options.batchChars);
    for await (const lines of rows) yield LineBatch.ofTexts(lines);
  } catch (err) {
    throw asConnectorError(err, (e) => describeClickhouseError(e, c));
  }
}

/** A line's field of a column labelled `type` back into the value the source's read() yields. */
function valueOf(type: string, text: string): unknown {
  switch (type) {
    case "smallint":
    case "integer":
    case "bigint": {
      const n = Number(text);
      return Number.isSafeInteger(n) ? n : text;
    }
    case "real":
    case "double precision":
      return floatValue(Number(text));
    case "boolean":
      return text === "true";
    case "jsonb":
      return JSON.parse(text) as unknown;
    default:
      return text;
  }
}

function decode(line: string, cols: readonly TextColumn[]): Row {
  return decodeCopyLine(line, cols, (text, col) => valueOf(col.type, text));
}

export const clickhouseTextRows: TextRowsSource = { columns, read, decode };

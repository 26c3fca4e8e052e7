// ClickHouse types: parsed from the names the server gives them, mapped to JSON Schema, and their
// TabSeparated text turned into values of the value model (docs/connectors.md, "Values").
import type { JsonSchema } from "../types";
import { nonFiniteText } from "../shared/values";
import { isNullField, unescapeBytes } from "./tsv";

/** A type as ClickHouse names it: `Nullable(Array(DateTime('UTC')))` → name and arguments. */
export interface ChType {
  name: string;
  /** Type arguments (Array, Nullable, Tuple, Map…) or literal ones (`'UTC'`, `9`, `'a' = 1`) as text. */
  args: (ChType | string)[];
  /** A named tuple element's name. */
  field?: string;
  text: string;
}

/** Constructors whose arguments are types. */
const TYPE_ARGS = new Set(["Nullable", "LowCardinality", "Array", "Tuple", "Map", "Nested"]);

/** Top-level comma-separated parts of `text`, respecting brackets and quotes. */
function splitArgs(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'" || c === "`" || c === '"') {
      for (i++; i < text.length && text[i] !== c; i++) if (text[i] === "\\") i++;
    } else if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (c === "," && depth === 0) {
      parts.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  const last = text.slice(start).trim();
  if (last !== "") parts.push(last);
  return parts;
}

export function parseType(text: string): ChType {
  const t = text.trim();
  const open = t.indexOf("(");
  if (open === -1 || !t.endsWith(")")) return { name: t, args: [], text: t };
  const name = t.slice(0, open).trim();
  const inner = t.slice(open + 1, -1);
  const parts = splitArgs(inner);
  if (name === "SimpleAggregateFunction") return { name, args: [parts[0], parseType(parts.slice(1).join(", "))], text: t };
  if (!TYPE_ARGS.has(name)) return { name, args: parts, text: t };
  const args = parts.map((p) => {
    // A named tuple element or Nested column: `name Type`.
    const named = /^([A-Za-z_][A-Za-z0-9_]*|`(?:[^`\\]|\\.)*`)\s+([A-Z][\s\S]*)$/.exec(p);
    if ((name === "Tuple" || name === "Nested") && named) return { ...parseType(named[2]), field: named[1].replace(/^`|`$/g, "") };
    return parseType(p);
  });
  return { name, args, text: t };
}

/** The type under Nullable, LowCardinality and SimpleAggregateFunction wrappers. */
export function baseType(type: ChType): ChType {
  let t = type;
  for (;;) {
    if ((t.name === "Nullable" || t.name === "LowCardinality") && typeof t.args[0] === "object") t = t.args[0];
    else if (t.name === "SimpleAggregateFunction" && typeof t.args[1] === "object") t = t.args[1];
    else return t;
  }
}

function nullable(type: ChType): boolean {
  for (let t = type; ; ) {
    if (t.name === "Nullable") return true;
    if (t.name === "LowCardinality" && typeof t.args[0] === "object") t = t.args[0];
    else return false;
  }
}

const typeArg = (t: ChType, i: number): ChType => {
  const a = t.args[i];
  return typeof a === "object" ? a : parseType("String");
};

const SMALL_INTS = /^U?Int(8|16|32)$/;
const BIG_INTS = /^U?Int(64|128|256)$/;

/** JSON Schema of a column of `type`; `$comment` keeps ClickHouse's name. */
export function typeJsonSchema(type: ChType, top = true): JsonSchema {
  const t = baseType(type);
  let schema: JsonSchema;
  if (SMALL_INTS.test(t.name)) schema = { type: "integer" };
  // A number when exact as one (|n| ≤ 2^53 − 1), else its digits (the value model's bigint rule).
  else if (BIG_INTS.test(t.name)) schema = { type: ["integer", "string"] };
  else if (/^Float(32|64)$/.test(t.name)) schema = { type: "number" };
  else if (t.name === "Bool") schema = { type: "boolean" };
  else if (t.name === "Date" || t.name === "Date32") schema = { type: "string", format: "date" };
  else if (t.name === "DateTime" || t.name === "DateTime64") schema = { type: "string", format: "date-time" };
  else if (t.name === "Array") schema = { type: "array", items: typeJsonSchema(typeArg(t, 0), false) };
  else if (t.name === "Tuple") schema = { type: "array" };
  else if (t.name === "Map") schema = { type: "object" };
  else if (t.name === "Nothing") schema = { type: "null" };
  else schema = { type: "string" };
  if (nullable(type) && schema.type !== "null") schema = { ...schema, type: [...[schema.type].flat(), "null"] };
  return top ? { ...schema, $comment: type.text } : schema;
}

// ignoreBOM: a string that starts with U+FEFF keeps it (the decoder would drop it otherwise).
const DECODER = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * A String's bytes: its text when they are UTF-8 without NUL, else `\x` and hex, as PostgreSQL
 * writes bytea (ClickHouse strings are bytes; a NUL or broken UTF-8 fits no text column, and the
 * value model's marker strings start with a NUL).
 */
export function textOrHex(bytes: Buffer): string {
  if (bytes.indexOf(0) === -1) {
    try {
      return DECODER.decode(bytes);
    } catch {
      // Not UTF-8: bytes.
    }
  }
  return `\\x${bytes.toString("hex")}`;
}

/** `YYYY-MM-DD hh:mm:ss` exactly, not the zero DateTime of servers before 20.x. */
function plainDateTime(t: string): boolean {
  if (t.length !== 19 || t.startsWith("0000-00-00")) return false;
  for (let i = 0; i < 19; i++) {
    const c = t.charCodeAt(i);
    const want = i === 4 || i === 7 ? 45 : i === 10 ? 32 : i === 13 || i === 16 ? 58 : -1;
    if (want === -1 ? c < 48 || c > 57 : c !== want) return false;
  }
  return true;
}

/**
 * A DateTime's text in UTC → ISO 8601 with `Z`, at least milliseconds (the timestamptz rule):
 * `YYYY-MM-DD hh:mm:ss[.f…]` as servers print it by default, and the forms a user's profile may ask
 * for with `date_time_output_format` (20.x on): `iso` (`…T…Z`) and `unix_timestamp` (seconds). Every
 * form gives the text the pass-through read has the server print (isoExpression).
 */
export function isoDateTime(text: string): string {
  // Most DateTimes: whole seconds, checked without a RegExp (a tenth of a line's conversion otherwise).
  if (plainDateTime(text)) return `${text.slice(0, 10)}T${text.slice(11)}.000Z`;
  // Servers before 20.x print the zero DateTime (the epoch) as zeros.
  const value = text.startsWith("0000-00-00") ? `1970-01-01${text.slice(10)}` : text;
  const m = /^(\d{4}-\d{2}-\d{2})(?: (\d{2}:\d{2}:\d{2})(?:\.(\d+))?|T(\d{2}:\d{2}:\d{2})(?:\.(\d+))?Z)$/.exec(value);
  if (m) return `${m[1]}T${m[2] ?? m[4]}.${(m[3] ?? m[5] ?? "").padEnd(3, "0")}Z`;
  const seconds = /^(\d{1,12})(?:\.(\d+))?$/.exec(text);
  if (!seconds) return text;
  return `${new Date(Number(seconds[1]) * 1000).toISOString().slice(0, 19)}.${(seconds[2] ?? "").padEnd(3, "0")}Z`;
}

/** A scalar value from its unescaped bytes. */
export function scalarValue(type: ChType, bytes: Buffer): unknown {
  const t = baseType(type);
  const name = t.name;
  if (SMALL_INTS.test(name)) return Number(bytes.toString("latin1"));
  if (BIG_INTS.test(name)) {
    const text = bytes.toString("latin1");
    const n = Number(text);
    return Number.isSafeInteger(n) ? n : text;
  }
  if (name === "Float32" || name === "Float64") {
    const text = bytes.toString("latin1");
    if (/nan/i.test(text)) return nonFiniteText(NaN);
    if (/inf/i.test(text)) return nonFiniteText(text.startsWith("-") ? -Infinity : Infinity);
    return Number(text);
  }
  if (name === "Bool") return bytes.toString("latin1") === "true";
  if (name === "Nothing") return null;
  if (name === "Date" || name === "Date32") {
    const text = bytes.toString("latin1");
    return text === "0000-00-00" ? "1970-01-01" : text;
  }
  if (name === "DateTime" || name === "DateTime64") return isoDateTime(bytes.toString("latin1"));
  // Decimals keep their exact text; Strings, FixedStrings, UUIDs, Enums, IPs and the rest, their text.
  return textOrHex(bytes);
}

const COMPOSITE = new Set(["Array", "Tuple", "Map", "Nested"]);

/** A TabSeparated field of a column of `type` (raw, as it came) as a value of the value model. */
export function fieldValue(type: ChType, field: Buffer): unknown {
  if (isNullField(field)) return null;
  const t = baseType(type);
  // Arrays, tuples and maps are written in their quoted form, already escaped once: not unescaped here.
  if (COMPOSITE.has(t.name)) return new QuotedReader(field).value(t);
  return scalarValue(t, unescapeBytes(field));
}

/** Reads ClickHouse's quoted text of arrays, tuples and maps: `['a\'b',NULL]`, `(1,[2])`, `{'k':1}`. */
class QuotedReader {
  private i = 0;
  constructor(private readonly buf: Buffer) {}

  value(type: ChType): unknown {
    const t = baseType(type);
    const b = this.buf;
    if (b[this.i] === 0x4e && b.toString("latin1", this.i, this.i + 4) === "NULL") {
      this.i += 4;
      return null;
    }
    if (t.name === "Array" || t.name === "Nested") {
      const element = t.name === "Array" ? typeArg(t, 0) : { name: "Tuple", args: t.args, text: t.text };
      return this.list(0x5b, 0x5d, () => this.value(element));
    }
    if (t.name === "Tuple") {
      const names = t.args.map((a) => (typeof a === "object" ? a.field : undefined));
      let k = 0;
      const items = this.list(0x28, 0x29, () => this.value(typeArg(t, k++)));
      // A named tuple is an object (servers from 21.x name them); an unnamed one an array.
      if (names.length > 0 && names.every((n) => n !== undefined)) return Object.fromEntries(items.map((v, j) => [names[j], v]));
      return items;
    }
    if (t.name === "Map") {
      const entries: [string, unknown][] = [];
      this.list(0x7b, 0x7d, () => {
        const key = this.value(typeArg(t, 0));
        this.expect(0x3a);
        entries.push([typeof key === "string" ? key : JSON.stringify(key), this.value(typeArg(t, 1))]);
        return undefined;
      });
      return Object.fromEntries(entries);
    }
    return scalarValue(t, this.scalarBytes());
  }

  private list(open: number, close: number, item: () => unknown): unknown[] {
    this.expect(open);
    const out: unknown[] = [];
    if (this.buf[this.i] === close) {
      this.i++;
      return out;
    }
    for (;;) {
      out.push(item());
      const c = this.buf[this.i++];
      if (c === close) return out;
      if (c !== 0x2c) throw new Error(`Unexpected "${String.fromCharCode(c)}" in ClickHouse's text of a composite value.`);
    }
  }

  private expect(byte: number): void {
    if (this.buf[this.i] !== byte) throw new Error(`Expected "${String.fromCharCode(byte)}" in ClickHouse's text of a composite value.`);
    this.i++;
  }

  /** A quoted string's unescaped bytes, or a bare token up to the next delimiter. */
  private scalarBytes(): Buffer {
    const b = this.buf;
    if (b[this.i] === 0x27) {
      const start = ++this.i;
      while (this.i < b.length && b[this.i] !== 0x27) this.i += b[this.i] === 92 ? 2 : 1;
      const raw = b.subarray(start, this.i);
      this.i++;
      return unescapeBytes(raw);
    }
    const start = this.i;
    while (this.i < b.length && ![0x2c, 0x5d, 0x29, 0x7d, 0x3a].includes(b[this.i])) this.i++;
    return b.subarray(start, this.i);
  }
}

/** `name` as a ClickHouse identifier. */
export function quoteIdent(name: string): string {
  return `\`${name.replace(/\\/g, "\\\\").replace(/`/g, "\\`")}\``;
}

/** `text` as a ClickHouse string literal. */
export function quoteString(text: string): string {
  return `'${text.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
}

/**
 * Whether the server can print a column of `type` as the text isoDateTime() makes of it: a DateTime or
 * Nullable(DateTime) (whole seconds; DateTime64's fractions and LowCardinality stay the worker's).
 */
export function isoOnServer(type: ChType): boolean {
  const t = type.name === "Nullable" && typeof type.args[0] === "object" ? type.args[0] : type;
  return t.name === "DateTime";
}

/**
 * isoDateTime()'s text of such a column, printed by the server: the pass-through read then sends the
 * field as it came instead of rewriting it a line at a time. %F and %T, not %i: 18.x knows only these
 * for minutes, and %M became the month's name in 23.x. The zero DateTime prints as the epoch, as
 * isoDateTime() reads an old server's zeros; NULL stays NULL.
 */
export function isoExpression(expr: string): string {
  return `formatDateTime(toTimeZone(${expr}, 'UTC'), '%FT%T.000Z')`;
}

/**
 * An expression giving `expr` (of `type`) with every DateTime in UTC, or undefined when it has
 * none: ClickHouse prints a DateTime in its column's (or the server's) time zone, and a local time
 * is ambiguous in the hour a clock goes back; UTC text is exact.
 */
export function utcExpression(expr: string, type: ChType, depth = 0): string | undefined {
  const t = baseType(type);
  if (t.name === "DateTime" || t.name === "DateTime64") return `toTimeZone(${expr}, 'UTC')`;
  if (t.name === "Array") {
    const v = `_e${depth}`;
    const inner = utcExpression(v, typeArg(t, 0), depth + 1);
    return inner === undefined ? undefined : `arrayMap(${v} -> ${inner}, ${expr})`;
  }
  if (t.name === "Tuple" && t.args.every((a) => typeof a === "object" && a.field === undefined)) {
    const parts = t.args.map((_, i) => utcExpression(`tupleElement(${expr}, ${i + 1})`, typeArg(t, i), depth + 1));
    if (parts.every((p) => p === undefined)) return undefined;
    return `tuple(${parts.map((p, i) => p ?? `tupleElement(${expr}, ${i + 1})`).join(", ")})`;
  }
  return undefined;
}

/** A literal of the cursor column's type for `value` (a cursor as the engine stores it: our text of the value). */
export function cursorLiteral(type: ChType, value: string): string {
  const t = baseType(type);
  if (t.name === "DateTime") return `parseDateTimeBestEffort(${quoteString(value)})`;
  if (t.name === "DateTime64") return `parseDateTime64BestEffort(${quoteString(value)}, ${Number(t.args[0]) || 3})`;
  if (/^(String|FixedString|Enum8|Enum16|UUID)$/.test(t.name) || t.name.startsWith("Enum")) return quoteString(value);
  return `CAST(${quoteString(value)} AS ${t.text})`;
}

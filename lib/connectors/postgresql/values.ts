// PostgreSQL values into the value model (shared/values.ts): a whitelist of types that become
// JavaScript values exactly (booleans, small integers, finite floats, JSON documents, arrays of
// these); every other type travels as the server's own text, which the same type reads back
// exactly (numeric, intervals, dates, times, bytea, inet, geometric types, ranges, enums, ...).
// The table is in docs/connectors.md ("Values").
import pg from "pg";
import { floatValue, parseJsonExact } from "../shared/values";

type Parser = (text: string) => unknown;

const OID = {
  bool: 16,
  bytea: 17,
  int8: 20,
  int2: 21,
  int4: 23,
  oid: 26,
  json: 114,
  float4: 700,
  float8: 701,
  date: 1082,
  timestamp: 1114,
  timestamptz: 1184,
  jsonb: 3802,
} as const;

const asText: Parser = (value) => value;

/**
 * int8 text → a JSON number when it is exact as one (|n| ≤ 2^53 − 1), else the text unchanged: a
 * record's `id` is 1, not "1" (the API contract types it integer), and no digit is ever lost.
 */
export function int8Value(value: string): number | string {
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : value;
}

/** float4/float8 text (shortest exact form, extra_float_digits ≥ 1): a number, or "NaN", "Infinity", "-Infinity". */
export function floatText(value: string): number | string {
  return floatValue(Number(value));
}

/** `2024-05-01 10:00:00[.ffffff]+00[:30[:15]]`: a timestamptz in years 1–9999 AD as the server prints it. */
const TIMESTAMPTZ = /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(\.\d{1,6})?([+-])(\d\d)(?::(\d\d))?(?::(\d\d))?$/;

/**
 * timestamptz text → ISO 8601 in UTC (`2024-05-01T10:00:00.000Z`, at least milliseconds, every
 * microsecond kept), whatever the session's time zone. Values outside years 1–9999 AD (BC, 10000+)
 * and ±infinity stay as the server's text, which PostgreSQL reads back exactly.
 */
export function timestamptzToIso(value: string): string {
  const m = TIMESTAMPTZ.exec(value);
  if (!m) return value;
  const fraction = (m[7] ?? ".").slice(1).padEnd(3, "0");
  if (m[8] === "+" && m[9] === "00" && m[10] === undefined) {
    // The common case (a UTC session) as text: Date parsing is a tenth of a source read otherwise.
    return `${value.slice(0, 10)}T${value.slice(11, 19)}.${fraction}Z`;
  }
  const sign = m[8] === "+" ? 1 : -1;
  const offsetSeconds = sign * (Number(m[9]) * 3600 + Number(m[10] ?? 0) * 60 + Number(m[11] ?? 0));
  const utc = new Date(0);
  utc.setUTCFullYear(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  utc.setUTCHours(Number(m[4]), Number(m[5]), Number(m[6]) - offsetSeconds, 0);
  const year = utc.getUTCFullYear();
  if (year < 1 || year > 9999) return value;
  return `${utc.toISOString().slice(0, 19)}.${fraction}Z`;
}

/** timestamp text → ISO 8601 without a zone (`2024-05-01T10:00:00.123456`); BC and infinity as they are. */
export function timestampText(value: string): string {
  return value.replace(" ", "T");
}

const SCALARS: Record<number, Parser> = {
  [OID.bool]: (v) => v === "t" || v === "true",
  [OID.int2]: Number,
  [OID.int4]: Number,
  [OID.oid]: Number,
  [OID.int8]: int8Value,
  [OID.float4]: floatText,
  [OID.float8]: floatText,
  [OID.json]: parseJsonExact,
  [OID.jsonb]: parseJsonExact,
  [OID.date]: asText,
  [OID.bytea]: asText, // `\x…` hex text (bytea_output = hex, the default): unambiguous and JSON-safe
  [OID.timestamp]: timestampText,
  [OID.timestamptz]: timestamptzToIso,
};

/** Array oid → the parser of its elements. Other arrays travel as their text (`{…}`). */
const ELEMENTS: Record<number, Parser> = {
  1000: SCALARS[OID.bool],
  1005: Number, // int2[]
  1007: Number, // int4[]
  1028: Number, // oid[]
  1016: asText, // int8[]: digits, as pg has always given them
  1021: floatText, // float4[]
  1022: floatText, // float8[]
  1231: asText, // numeric[]
  1009: asText, // text[]
  1015: asText, // varchar[]
  1014: asText, // char[]
  2951: asText, // uuid[]
  1182: asText, // date[]
  1115: timestampText, // timestamp[]
  1185: timestamptzToIso, // timestamptz[]
  1187: asText, // interval[]
  1183: asText, // time[]
  1270: asText, // timetz[]
  1041: asText, // inet[]
  651: asText, // cidr[]
  1040: asText, // macaddr[]
  1001: asText, // bytea[]
  199: parseJsonExact, // json[]
  3807: parseJsonExact, // jsonb[]
};

/** pg-types' array parser at run time (its typings describe another version's shape). */
const arrays = pg.types.arrayParser as unknown as { create(text: string, transform: (entry: string | null) => unknown): { parse(): unknown[] } };

function arrayParser(element: Parser): Parser {
  return (text) => arrays.create(text, (entry) => (entry === null ? null : element(entry))).parse();
}

const PARSERS: Record<number, Parser> = {
  ...SCALARS,
  ...Object.fromEntries(Object.entries(ELEMENTS).map(([oid, element]) => [oid, arrayParser(element)])),
};

/** The value-model parser of a type's text (the text format is the only one the connector reads). */
export function pgValueParser(oid: number): Parser {
  return PARSERS[oid] ?? asText;
}

/**
 * Per-client parsers (never the global pg.types: the app's Prisma adapter shares the module). A
 * binary column (never requested by this connector) keeps pg's own parser.
 */
export const valueTypes = {
  getTypeParser(oid: number, format?: "text" | "binary") {
    return format === "binary" ? pg.types.getTypeParser(oid, "binary") : pgValueParser(oid);
  },
} as unknown as pg.CustomTypesConfig;

/**
 * Types whose values the engine carried differently before the value model (docs/connectors.md,
 * "Values": what an existing sync does on its next run), with a SQL condition true for a value that
 * was bent: the source's fingerprint of such a row changes, so the row is sent again and repaired.
 * `$c` stands for the column. Approximate on the safe side: a false positive only re-sends a row once.
 */
export function bentBeforeCondition(typeName: string): string | undefined {
  switch (typeName) {
    case "real":
    case "double precision":
      return "$c IN ('NaN'::float8, 'Infinity'::float8, '-Infinity'::float8)";
    case "timestamp with time zone":
      return "(isfinite($c) AND ($c <> date_trunc('milliseconds', $c) OR $c < '0001-01-01 00:00:00+00' OR $c >= '10000-01-01 00:00:00+00'))";
    case "json":
    case "jsonb":
      // Numbers of 16+ digits, with a trailing zero after the point, an exponent, or -0.
      return "$c::text ~ '[0-9]{16}|[0-9.]{17}|\\.[0-9]*0(?![0-9])|[0-9][eE]|-0(?![.0-9])'";
    case "real[]":
    case "double precision[]":
      return "$c::text ~ 'NaN|Infinity'";
    case "interval":
    case "point":
    case "circle":
    case "numeric[]":
    case "date[]":
    case "timestamp without time zone[]":
    case "timestamp with time zone[]":
    case "interval[]":
    case "bytea[]":
    case "json[]":
    case "jsonb[]":
    case "point[]":
      return "$c IS NOT NULL";
  }
  return undefined;
}

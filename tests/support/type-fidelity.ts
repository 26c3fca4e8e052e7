// The type-fidelity suite's table: awkward values per type family, and how each must arrive. A
// connector pair runs the table through a real sync and asserts, column by column, that what arrived
// equals what left, or equals the documented conversion (docs/connectors.md, "Values"). Each
// connector joins with the types its system has.
import { expect } from "vitest";
import { exactJson } from "@/lib/connectors/shared/values";

export interface FidelityColumn {
  name: string;
  /** PostgreSQL column type. */
  pg: string;
  /** SQL literals of the values, one per row (NULL allowed); row i has id i + 1. */
  values: string[];
}

/**
 * The 19 PostgreSQL types of issue 33 with their awkward values, three rows plus a row of NULLs: the
 * extremes of smallint and bigint, numeric(38,10), NaN and ±Infinity, emoji, escapes and quotes,
 * dates 0001-01-01 and 9999-12-31, timestamp infinity, microseconds, negative intervals, big integers
 * and trailing zeros inside JSON, arrays with NULLs, commas and quotes, bytes, addresses.
 */
export const PG_TYPES: FidelityColumn[] = [
  { name: "small", pg: "smallint", values: ["-32768", "32767", "0"] },
  { name: "big", pg: "bigint", values: ["-9223372036854775808", "9223372036854775807", "9007199254740993"] },
  {
    name: "amount",
    pg: "numeric(38,10)",
    values: ["-9999999999999999999999999999.9999999999", "9999999999999999999999999999.9999999999", "0.0000000001"],
  },
  { name: "f4", pg: "real", values: ["'NaN'", "'Infinity'", "'-Infinity'"] },
  { name: "f8", pg: "double precision", values: ["'-Infinity'", "'NaN'", "0.1"] },
  { name: "flag", pg: "boolean", values: ["true", "false", "true"] },
  {
    name: "label",
    pg: "text",
    values: [`E'emoji \\U0001F600 tab\\t nl\\n cr\\r back\\\\ quote'' dq" \\\\N'`, "''", `'{"not":"json"}'`],
  },
  { name: "code", pg: "varchar(40)", values: ["'a,b;c'", "' '", "'NULL'"] },
  { name: "day", pg: "date", values: ["'0001-01-01'", "'9999-12-31'", "'2000-02-29'"] },
  { name: "at", pg: "timestamp", values: ["'infinity'", "'-infinity'", "'2024-05-01 10:00:00.123456'"] },
  {
    name: "at_tz",
    pg: "timestamptz",
    values: ["'2024-05-01 10:00:00.123456+02'", "'infinity'", "'0001-01-01 00:00:00+00'"],
  },
  { name: "clock", pg: "time", values: ["'23:59:59.999999'", "'00:00'", "'12:00:00.5'"] },
  { name: "span", pg: "interval", values: ["'-1 days'", "'1 year 2 mons 3 days 04:05:06.789'", "'-00:00:00.000001'"] },
  { name: "uid", pg: "uuid", values: ["'00000000-0000-0000-0000-000000000000'", "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'", "gen_random_uuid()"] },
  {
    name: "doc",
    pg: "jsonb",
    values: [
      `'{"big": 12345678901234567890, "dec": 1.50, "neg": -0.0, "e": 1e-7, "s": "a\\"b\\u00e9", "nested": [1, 2.000, null]}'`,
      `'[]'`,
      `'"just text"'`,
    ],
  },
  { name: "ints", pg: "integer[]", values: ["'{1,NULL,-2147483648}'", "'{}'", "ARRAY[NULL]::integer[]"] },
  { name: "texts", pg: "text[]", values: [`'{"a,b","c\\"d",NULL,"NULL","","x\\\\y"}'`, "'{}'", `ARRAY['{', '}']`] },
  { name: "bytes", pg: "bytea", values: ["'\\x00ff5c0a'", "''", "'\\x'"] },
  { name: "addr", pg: "inet", values: ["'192.168.0.1/24'", "'::1'", "'2001:db8::ff00:42:8329'"] },
];

export const ROWS = 4;

/**
 * The engine's read paths for a PostgreSQL-to-PostgreSQL sync of the table (lib/engine/test-support.ts:
 * readPath): as it is; with one static column, as mapped lines (pass-through would compute it, but not
 * beside array columns), and again with a rate limit; the same as rows (lines off, ENGINE_PASS_THROUGH=0).
 * Computed columns are checked against the JSON path in lib/engine/pass-through/mapped-lines.test.ts.
 */
export const FIDELITY_PATHS = [
  { path: "pass-through", suffix: "text", title: "pass-through", computed: false, rate: undefined },
  // The table has array columns, which write() sends as JSON: no computed column beside them.
  { path: "mapped lines", suffix: "computed", title: "mapped lines (one static column beside array columns)", computed: true, rate: undefined },
  { path: "mapped lines", suffix: "lines", title: "mapped lines (one static column, a rate limit)", computed: true, rate: 1_000_000 },
  { path: "rows", suffix: "json", title: "JSON path (one static column, lines off)", computed: true, rate: undefined },
] as const;

export function pgColumnsDdl(columns: FidelityColumn[], extra = ""): string {
  return `id integer PRIMARY KEY, ${columns.map((c) => `"${c.name}" ${c.pg}`).join(", ")}${extra}`;
}

/** INSERT of the table's rows (ids 1..3) and a row of NULLs (id 4). */
export function pgInsert(table: string, columns: FidelityColumn[]): string {
  const rows = [0, 1, 2].map((i) => `(${i + 1}, ${columns.map((c) => c.values[i]).join(", ")})`);
  rows.push(`(4, ${columns.map(() => "NULL").join(", ")})`);
  return `INSERT INTO ${table} (id, ${columns.map((c) => `"${c.name}"`).join(", ")}) VALUES ${rows.join(", ")}`;
}

/** Each column as PostgreSQL's own text (`::text`), by id: the exact value, whatever the type. */
export function pgTextSelect(table: string, columns: FidelityColumn[]): string {
  return `SELECT id, ${columns.map((c) => `"${c.name}"::text AS "${c.name}"`).join(", ")} FROM ${table} ORDER BY id`;
}

/** Per row and column, arrived equals left (the message names the row and column). */
export function expectSameCells(left: Record<string, unknown>[], arrived: Record<string, unknown>[], columns: string[]): void {
  expect(arrived.map((r) => r.id)).toEqual(left.map((r) => r.id));
  for (let i = 0; i < left.length; i++) {
    for (const c of columns) expect(arrived[i][c], `row ${String(left[i].id)}, column "${c}"`).toEqual(left[i][c]);
  }
}

/**
 * How each value of PG_TYPES travels (records, plans, JSON payloads), by id: the value model of
 * docs/connectors.md. JSON text of the record (exactJson), so numbers inside JSON are compared exactly.
 */
export const PG_TYPES_AS_JSON: Record<number, Record<string, string>> = {
  1: {
    small: "-32768",
    big: '"-9223372036854775808"',
    amount: '"-9999999999999999999999999999.9999999999"',
    f4: '"NaN"',
    f8: '"-Infinity"',
    flag: "true",
    label: JSON.stringify(`emoji \u{1F600} tab\t nl\n cr\r back\\ quote' dq" \\N`),
    code: '"a,b;c"',
    day: '"0001-01-01"',
    at: '"infinity"',
    at_tz: '"2024-05-01T08:00:00.123456Z"',
    clock: '"23:59:59.999999"',
    span: '"-1 days"',
    uid: '"00000000-0000-0000-0000-000000000000"',
    // jsonb orders the keys and writes numbers as numeric does: 1e-7 as 0.0000001, -0.0 as 0.0.
    doc: '{"e":0.0000001,"s":"a\\"bé","big":12345678901234567890,"dec":1.50,"neg":0.0,"nested":[1,2.000,null]}',
    ints: "[1,null,-2147483648]",
    texts: '["a,b","c\\"d",null,"NULL","","x\\\\y"]',
    bytes: '"\\\\x00ff5c0a"',
    addr: '"192.168.0.1/24"',
  },
  2: {
    small: "32767",
    big: '"9223372036854775807"',
    f4: '"Infinity"',
    f8: '"NaN"',
    day: '"9999-12-31"',
    at: '"-infinity"',
    at_tz: '"infinity"',
    span: '"1 year 2 mons 3 days 04:05:06.789"',
    doc: "[]",
    ints: "[]",
    bytes: '"\\\\x"',
  },
  3: {
    big: '"9007199254740993"',
    amount: '"0.0000000001"',
    f4: '"-Infinity"',
    f8: "0.1",
    at: '"2024-05-01T10:00:00.123456"',
    at_tz: '"0001-01-01T00:00:00.000Z"',
    span: '"-00:00:00.000001"',
    doc: '"just text"',
    ints: "[null]",
    texts: '["{","}"]',
  },
  4: Object.fromEntries(PG_TYPES.map((c) => [c.name, "null"])),
};

/** A record's (or payload's) values as JSON text, exactly (exactJson), compared with PG_TYPES_AS_JSON. */
export function expectRecordValues(id: number, record: Record<string, unknown>): void {
  for (const [column, json] of Object.entries(PG_TYPES_AS_JSON[id])) {
    expect(exactJson(record[column]), `record ${id}, column "${column}"`).toBe(json);
  }
}

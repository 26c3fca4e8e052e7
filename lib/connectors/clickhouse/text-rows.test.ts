// The ClickHouse source's COPY text, line by line, for types and values servers newer than the test
// server (18.16) also send (DateTime64, Map, Bool, Date32, IPv6, LowCardinality): each field unescaped
// is the text the JSON path's PostgreSQL destination writes for the row's value (scalarText, or
// exactJson into jsonb), NULL is COPY's \N, and decode() gives back the row the JSON path reads.
import { describe, expect, it } from "vitest";
import { copyUnescape } from "@/lib/db/pg-wire/text-copy";
import { exactJson, scalarText } from "../shared/values";
import { clickhouseTextRows, copyLineOf, textKind } from "./text-rows";
import { splitFields } from "./tsv";
import { readStatement } from "./read";
import { fieldValue, isoDateTime, isoOnServer, parseType } from "./values";

/** ClickHouse type, a field as TabSeparated writes it (raw bytes, still escaped), and the COPY field expected. */
const CASES: { type: string; raw: string | Buffer; copy: string }[] = [
  { type: "Int8", raw: "-128", copy: "-128" },
  { type: "UInt64", raw: "18446744073709551615", copy: "18446744073709551615" },
  { type: "Int128", raw: "-170141183460469231731687303715884105728", copy: "-170141183460469231731687303715884105728" },
  { type: "Decimal(38, 10)", raw: "-9999999999999999999999999999.9999999999", copy: "-9999999999999999999999999999.9999999999" },
  { type: "Float64", raw: "nan", copy: "NaN" },
  { type: "Float64", raw: "-inf", copy: "-Infinity" },
  { type: "Float32", raw: "inf", copy: "Infinity" },
  { type: "Float64", raw: "1e21", copy: "1e+21" },
  { type: "Float32", raw: "0.1", copy: "0.1" },
  { type: "Bool", raw: "true", copy: "true" },
  { type: "Nullable(String)", raw: "\\N", copy: "\\N" },
  // The two-character string \N: escaped by both formats alike.
  { type: "Nullable(String)", raw: "\\\\N", copy: "\\\\N" },
  { type: "String", raw: "tab\\there nl\\n cr\\r back\\\\ quote\\' \u00fc \u{1F600}", copy: "tab\\there nl\\n cr\\r back\\\\ quote\\' \u00fc \u{1F600}" },
  { type: "String", raw: "\uFEFFbom", copy: "\uFEFFbom" },
  // A NUL, or bytes that are not UTF-8: bytea's hex text (its backslash escaped for COPY).
  { type: "String", raw: "a\\0b", copy: "\\\\x610062" },
  { type: "String", raw: Buffer.from([0x61, 0xff, 0x62]), copy: "\\\\x61ff62" },
  // \a is BEL in ClickHouse but the letter a in COPY: rewritten.
  { type: "String", raw: "bell\\a", copy: "bell\x07" },
  { type: "LowCardinality(Nullable(String))", raw: "x\\ty", copy: "x\\ty" },
  { type: "FixedString(3)", raw: "ab\\0", copy: "\\\\x616200" },
  { type: "Enum8('a\\tb' = 1)", raw: "a\\tb", copy: "a\\tb" },
  { type: "IPv6", raw: "::1", copy: "::1" },
  { type: "UUID", raw: "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", copy: "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11" },
  { type: "Date", raw: "0000-00-00", copy: "1970-01-01" },
  { type: "Date32", raw: "1900-01-01", copy: "1900-01-01" },
  { type: "DateTime", raw: "2024-05-01 10:00:00", copy: "2024-05-01T10:00:00.000Z" },
  { type: "DateTime64(3)", raw: "2024-05-01 10:00:00.123", copy: "2024-05-01T10:00:00.123Z" },
  { type: "DateTime64(6, 'UTC')", raw: "1900-01-01 00:00:00.000001", copy: "1900-01-01T00:00:00.000001Z" },
  { type: "DateTime64(9)", raw: "2262-04-11 23:47:16.854775807", copy: "2262-04-11T23:47:16.854775807Z" },
  { type: "Nullable(DateTime64(3))", raw: "\\N", copy: "\\N" },
  { type: "Array(Nullable(Int32))", raw: "[1,NULL,-2147483648]", copy: "[1,null,-2147483648]" },
  { type: "Array(String)", raw: "['a\\tb','c\"d','\\\\N']", copy: '["a\\\\tb","c\\\\"d","\\\\\\\\N"]' },
  { type: "Array(UInt64)", raw: "[18446744073709551615,1]", copy: '["18446744073709551615",1]' },
  { type: "Array(Float64)", raw: "[nan,-inf,0.5]", copy: '["NaN","-Infinity",0.5]' },
  { type: "Map(String, UInt64)", raw: "{'k\\'1':18446744073709551615,'k2':2}", copy: '{"k\'1":"18446744073709551615","k2":2}' },
  { type: "Tuple(a Int32, b Nullable(String))", raw: "(1,NULL)", copy: '{"a":1,"b":null}' },
  { type: "Array(DateTime64(3))", raw: "['2024-05-01 10:00:00.120']", copy: '["2024-05-01T10:00:00.120Z"]' },
];

const bytes = (raw: string | Buffer) => (typeof raw === "string" ? Buffer.from(raw, "utf8") : raw);

describe("ClickHouse lines as COPY text", () => {
  it("each field is the JSON path's text of its value, alone and side by side with every other", () => {
    const columns = CASES.map((c, i) => ({ name: `c${i}`, type: parseType(c.type) }));
    const line = Buffer.concat(CASES.flatMap((c, i) => (i === 0 ? [bytes(c.raw)] : [Buffer.from("\t"), bytes(c.raw)])));
    const copy = copyLineOf(columns).line(line).split("\t");
    for (const [i, c] of CASES.entries()) {
      const alone = copyLineOf([columns[i]]).line(bytes(c.raw));
      expect(alone, `${c.type} ${String(c.raw)}`).toBe(c.copy);
      // Whole, the line goes the slow way (its NUL, its broken UTF-8): the field reads the same.
      expect(copyUnescape(copy[i]), `${c.type} in the whole line`).toBe(copyUnescape(c.copy));
      const value = fieldValue(columns[i].type, splitFields(bytes(c.raw))[0]);
      const json = textKind(columns[i].type).kind === "json";
      expect(copyUnescape(alone), c.type).toBe(value === null ? null : json ? exactJson(value) : scalarText(value));
    }
  });

  it("decode() gives back the row the JSON path reads", () => {
    const columns = CASES.map((c, i) => ({ name: `c${i}`, type: parseType(c.type) }));
    const textColumns = columns.map((c) => ({ name: c.name, oid: 0, type: textKind(c.type).label }));
    for (const [i, c] of CASES.entries()) {
      const line = copyLineOf([columns[i]]).line(bytes(c.raw));
      const expected = { [columns[i].name]: fieldValue(columns[i].type, splitFields(bytes(c.raw))[0]) };
      expect(clickhouseTextRows.decode(line, [textColumns[i]]), `${c.type} ${String(c.raw)}`).toEqual(expected);
    }
  });

  it("labels each type with the PostgreSQL type its text is exact for", () => {
    const label = (t: string) => textKind(parseType(t)).label;
    expect(["Int16", "Int32", "UInt64", "Float32", "Float64", "Decimal(9, 2)", "Bool", "UUID", "Date", "DateTime64(3)", "Nullable(String)"].map(label)).toEqual([
      "smallint",
      "integer",
      "bigint",
      "real",
      "double precision",
      "numeric",
      "boolean",
      "uuid",
      "date",
      "timestamp with time zone",
      "text",
    ]);
    expect(["Array(Int32)", "Map(String, String)", "Tuple(Int8)", "JSON", "IntervalDay", "Nothing"].map(label)).toEqual(Array(6).fill("jsonb"));
  });

  it("DateTimes become ISO 8601 in UTC, whole seconds by the fast check and the rest by the pattern", () => {
    expect(isoDateTime("2024-05-01 10:00:00")).toBe("2024-05-01T10:00:00.000Z");
    expect(isoDateTime("0000-00-00 00:00:00")).toBe("1970-01-01T00:00:00.000Z");
    expect(isoDateTime("2024-05-01 10:00:00.5")).toBe("2024-05-01T10:00:00.500Z");
    expect(isoDateTime("2024-05-0x 10:00:00")).toBe("2024-05-0x 10:00:00");
    expect(isoDateTime("2024-05-01T10:00:00")).toBe("2024-05-01T10:00:00");
    // date_time_output_format = iso / unix_timestamp in the user's profile: the same text.
    expect(isoDateTime("2024-05-01T10:00:00Z")).toBe("2024-05-01T10:00:00.000Z");
    expect(isoDateTime("2024-05-01T10:00:00.25Z")).toBe("2024-05-01T10:00:00.250Z");
    expect(isoDateTime("1714557600")).toBe("2024-05-01T10:00:00.000Z");
    expect(isoDateTime("1714557600.123456")).toBe("2024-05-01T10:00:00.123456Z");
    expect(isoDateTime("0")).toBe("1970-01-01T00:00:00.000Z");
  });

  it("DateTimes the statement printed as ISO text go as they came; DateTime64 and LowCardinality are still rewritten", () => {
    const columns = ["Nullable(DateTime)", "DateTime('Asia/Tokyo')", "DateTime64(3)", "LowCardinality(DateTime)"].map((t, i) => ({ name: `c${i}`, type: parseType(t) }));
    expect(columns.map((c) => isoOnServer(c.type))).toEqual([true, true, false, false]);
    const statement = readStatement("SELECT 1", columns, { isoDateTimes: true });
    expect(statement).toContain("formatDateTime(toTimeZone(q.`c0`, 'UTC'), '%FT%T.000Z') AS _c0");
    expect(statement).toContain("toTimeZone(q.`c2`, 'UTC') AS _c2");
    const line = Buffer.from("\\N\t2024-05-01T01:00:00.000Z\t2024-05-01 10:00:00.250\t2024-05-01 10:00:00");
    expect(copyLineOf(columns, { isoDateTimes: true }).line(line)).toBe("\\N\t2024-05-01T01:00:00.000Z\t2024-05-01T10:00:00.250Z\t2024-05-01T10:00:00.000Z");
  });

  it("a hostile server's escaped tab or line break in a number or a date stays inside its field (the slow path)", () => {
    // `\x41` forces the slow path; the Int64 and Date fields carry an escaped tab and line break.
    const columns = [
      { name: "n", type: parseType("Int64") },
      { name: "d", type: parseType("Date") },
      { name: "s", type: parseType("String") },
    ];
    const line = copyLineOf(columns).line(Buffer.from("1\\tX\\n2\t2024-01-01\\n9\t\\x41"));
    expect(line.includes("\n")).toBe(false);
    expect(line.split("\t")).toEqual(["1\\tX\\n2", "2024-01-01\\n9", "A"]);
  });

  it("a block of lines converts as its lines one by one, and declines a block with a line the fast way cannot take", () => {
    const columns = [
      { name: "n", type: parseType("Int64") },
      { name: "f", type: parseType("Float64") },
      { name: "t", type: parseType("DateTime64(3)") },
      { name: "s", type: parseType("String") },
    ];
    const parser = copyLineOf(columns);
    const lines = [
      "1\t0.1\t2024-05-01 10:00:00.120\tplain",
      "2\tinf\t1900-01-01 00:00:00.000\ttab\\there, line\\nbreak, quote\\' and \\\\N",
      "-9223372036854775808\t-0\t2262-04-11 23:47:16.854\t\u00e9\u{1F600}",
      "\\N\tnan\t\\N\t",
    ];
    const block = Buffer.from(lines.join("\n"), "utf8");
    expect(parser.block?.(block)).toEqual(lines.map((l) => parser.line(Buffer.from(l, "utf8"))));
    // An escape COPY reads otherwise (`\0`), a NUL byte, or bytes not UTF-8: the block declines
    // and its lines go one by one (the odd one the slow way).
    for (const odd of [Buffer.from("3\t1\t\\N\ta\\0b"), Buffer.from("3\t1\t\\N\ta\0b"), Buffer.from([0x33, 9, 0x31, 9, 0x5c, 0x4e, 9, 0xff])]) {
      expect(parser.block?.(Buffer.concat([block, Buffer.from("\n"), odd]))).toBeUndefined();
      expect(parser.line(odd).split("\t")).toHaveLength(4);
    }
    expect(() => parser.block?.(Buffer.from("1\t2\n3"))).toThrow(/2 fields; the query has 4 columns/);
  });

  it("refuses a line whose field count is not the query's", () => {
    const columns = [{ name: "a", type: parseType("Int32") }];
    expect(() => copyLineOf(columns).line(Buffer.from("1\t2"))).toThrow(/2 fields; the query has 1 columns/);
    const two = [...columns, { name: "b", type: parseType("DateTime") }];
    expect(() => copyLineOf(two).line(Buffer.from("1"))).toThrow(/1 fields; the query has 2 columns/);
    expect(() => copyLineOf(two).line(Buffer.from("1\t2024-05-01 10:00:00\t3"))).toThrow(/3 fields; the query has 2 columns/);
    expect(() => copyLineOf(two).line(Buffer.from("1\t\\0\t3"))).toThrow(/3 fields; the query has 2 columns/);
  });
});

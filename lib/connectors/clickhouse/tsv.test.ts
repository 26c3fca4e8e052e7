// Pure pieces of the ClickHouse source: byte lines across chunk borders, TabSeparated escapes,
// type names and the quoted text of composite values.
import { describe, expect, it } from "vitest";
import { blockLines, IncompleteLineError, lineBlocks, LineTooLongError, MAX_LINE_BYTES, splitFields, unescapeBytes } from "./tsv";
import { cursorLiteral, fieldValue, parseType, typeJsonSchema, utcExpression } from "./values";

/** The lines of a byte stream one by one, as the reader cuts them (lineBlocks, then blockLines). */
async function* byteLines(chunks: AsyncIterable<Uint8Array>, maxLineBytes = MAX_LINE_BYTES): AsyncGenerator<Buffer> {
  for await (const block of lineBlocks(chunks, maxLineBytes)) yield* blockLines(block);
}

async function* chunks(parts: (string | Buffer)[]): AsyncGenerator<Uint8Array> {
  for (const p of parts) yield typeof p === "string" ? Buffer.from(p, "utf8") : p;
}

async function lines(parts: (string | Buffer)[]): Promise<string[]> {
  const out: string[] = [];
  for await (const line of byteLines(chunks(parts))) out.push(line.toString("latin1"));
  return out;
}

describe("byteLines", () => {
  it("cuts lines wherever the chunks end, and refuses a last line without its newline", async () => {
    expect(await lines(["a\tb\nc", "d\n", "\n", "e", "f\ng\n"])).toEqual(["a\tb", "cd", "", "ef", "g"]);
    // A UTF-8 character split between two chunks stays whole.
    const smile = Buffer.from("\u{1F600}\n", "utf8");
    const out: Buffer[] = [];
    for await (const line of byteLines(chunks([smile.subarray(0, 2), smile.subarray(2)]))) out.push(Buffer.from(line));
    expect(out.map((b) => b.toString("utf8"))).toEqual(["\u{1F600}"]);
    await expect(lines(["a\nCode: 159, e.displayText() = DB::Exception: Timeout"])).rejects.toBeInstanceOf(IncompleteLineError);
  });
});

describe("byteLines bounds", () => {
  it("joins a line of many chunks once (not at each chunk), and refuses one past the cap", async () => {
    const piece = Buffer.alloc(100, "x");
    async function* many(count: number, end: boolean, size = 100): AsyncGenerator<Uint8Array> {
      const chunk = Buffer.alloc(size, "x");
      for (let i = 0; i < count; i++) yield chunk;
      if (end) yield Buffer.from("\n");
    }
    const started = Date.now();
    const out: Buffer[] = [];
    // Joined at each chunk, these 20 000 pieces would copy ~200 GB; joined once, 20 MB.
    for await (const line of byteLines(many(20_000, true, 1000))) out.push(line);
    expect(out.map((b) => b.length)).toEqual([20_000_000]);
    expect(Date.now() - started).toBeLessThan(10_000);
    // A line that never ends stops at the cap instead of filling the memory.
    const endless = async function* (): AsyncGenerator<Uint8Array> {
      for (;;) yield piece;
    };
    await expect(lines2(byteLines(endless(), 1024 * 1024))).rejects.toBeInstanceOf(LineTooLongError);
    await expect(lines2(byteLines(many(20, true), 1000))).rejects.toThrow(/longer than/);
    expect((await lines2(byteLines(many(10, true), 1000)))[0].length).toBe(1000);
  });
});

describe("lineBlocks", () => {
  it("gives each chunk's whole lines as one block, the same lines byteLines cuts", async () => {
    const parts = ["a\tb\nc", "d\n", "\n", "e", "f\ng\nh", "\n"];
    const blocks: string[] = [];
    for await (const block of lineBlocks(chunks(parts))) blocks.push(block.toString("latin1"));
    expect(blocks).toEqual(["a\tb", "cd", "", "ef\ng", "h"]);
    expect(blocks.flatMap((b) => blockLines(Buffer.from(b, "latin1")).map((l) => l.toString("latin1")))).toEqual(await lines(parts));
  });

  it("refuses a line past the cap inside one chunk, not only across chunks", async () => {
    const chunk = Buffer.from(`short\n${"x".repeat(2000)}\nshort\nlast\n`);
    await expect(lines2(byteLines(chunks([chunk]), 1000))).rejects.toBeInstanceOf(LineTooLongError);
    expect((await lines2(byteLines(chunks([chunk]), 2000))).map((l) => l.length)).toEqual([5, 2000, 5, 4]);
  });
});

async function lines2(gen: AsyncGenerator<Buffer>): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for await (const line of gen) out.push(line);
  return out;
}

describe("fields", () => {
  it("unescapes TabSeparated text as bytes", () => {
    const [a, b] = splitFields(Buffer.from("x\\ty\\\\z\\n\\0\\'\t\\xFF", "latin1"));
    expect(unescapeBytes(a)).toEqual(Buffer.from("x\ty\\z\n\u0000'", "latin1"));
    expect(unescapeBytes(b)).toEqual(Buffer.from([0xff]));
  });

  it("parses values of composite types from their quoted text", () => {
    const v = (type: string, text: string) => fieldValue(parseType(type), Buffer.from(text, "utf8"));
    expect(v("Array(Nullable(String))", "['a\\\\b','q\\'t','tab\\there',NULL]")).toEqual(["a\\b", "q't", "tab\there", null]);
    expect(v("Array(Array(UInt8))", "[[1,2],[]]")).toEqual([[1, 2], []]);
    expect(v("Tuple(String, Array(Date))", "('x',['2024-01-02'])")).toEqual(["x", ["2024-01-02"]]);
    expect(v("Tuple(a String, b UInt64)", "('x',18446744073709551615)")).toEqual({ a: "x", b: "18446744073709551615" });
    expect(v("Map(String, Float64)", "{'a':nan,'b':1.5}")).toEqual({ a: "NaN", b: 1.5 });
    expect(v("LowCardinality(Nullable(String))", "\\N")).toBeNull();
    expect(v("Nullable(DateTime64(6, 'UTC'))", "2024-05-01 08:00:00.123456")).toBe("2024-05-01T08:00:00.123456Z");
  });

  it("maps types to JSON Schema, DateTimes to UTC expressions and cursor literals", () => {
    expect(typeJsonSchema(parseType("Nullable(Int64)"))).toEqual({ type: ["integer", "string", "null"], $comment: "Nullable(Int64)" });
    expect(typeJsonSchema(parseType("Array(Nullable(Float32))"))).toEqual({ type: "array", items: { type: ["number", "null"] }, $comment: "Array(Nullable(Float32))" });
    expect(utcExpression("q.`t`", parseType("Array(Array(DateTime('Asia/Tokyo')))"))).toBe(
      "arrayMap(_e0 -> arrayMap(_e1 -> toTimeZone(_e1, 'UTC'), _e0), q.`t`)",
    );
    expect(utcExpression("q.`n`", parseType("Array(UInt8)"))).toBeUndefined();
    expect(cursorLiteral(parseType("Nullable(DateTime)"), "2024-01-01T00:00:00.000Z")).toBe("parseDateTimeBestEffort('2024-01-01T00:00:00.000Z')");
    expect(cursorLiteral(parseType("Decimal(10, 2)"), "1.50")).toBe("CAST('1.50' AS Decimal(10, 2))");
    expect(cursorLiteral(parseType("String"), "it's")).toBe("'it\\'s'");
  });
});

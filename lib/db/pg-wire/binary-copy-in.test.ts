// Binary COPY input against a real PostgreSQL: what goes in comes back byte for byte, whatever the
// text holds, across the 64 KB chunks the input is cut into.
import { describe, expect, it } from "vitest";
import { useScratchClient } from "@/tests/support/db";
import { BinaryCopyInput, linesText, type TextLines } from "./binary-copy-in";

const client = useScratchClient("ds_copy_bin", "CREATE TYPE mood AS ENUM ('ok', 'bad'); CREATE TABLE t (n int, s text, m mood, j json, b jsonb)");

describe("BinaryCopyInput", () => {
  it("round-trips integers, text of any content, enums, json and jsonb, and NULLs", async () => {
    const texts = ["", "tab\there", "new\nline\r", "back\\slash \\N", "ünïcødé ✓ 𝄞", "x".repeat(200_000), "\\N",
      // Short text is copied by hand while it is ASCII: the edges of that.
      "ascii then €", "a".repeat(64), "b".repeat(65), "\u007f\u0080", "0123456789abcdef0123456789abcdef"];
    const input = new BinaryCopyInput();
    texts.forEach((s, i) => input.row(5).int4(i - 1).text(s).text(i % 2 ? "bad" : "ok").text(JSON.stringify({ s })).jsonb(JSON.stringify([s])));
    input.row(5).int4(2147483647).text(null).text(undefined).text(null).jsonb(undefined);
    input.row(5).int4(-2147483648).text("min").text(null).text(null).jsonb(undefined);
    await input.copy(client(), "COPY t (n, s, m, j, b) FROM STDIN");
    const { rows } = await client().query("SELECT n, s, m::text, j::text, b FROM t ORDER BY n");
    expect(rows).toEqual([
      { n: -2147483648, s: "min", m: null, j: null, b: null },
      ...texts.map((s, i) => ({ n: i - 1, s, m: i % 2 ? "bad" : "ok", j: JSON.stringify({ s }), b: [s] })),
      { n: 2147483647, s: null, m: null, j: null, b: null },
    ]);
  });

  it("writes a text of lines in pieces as the one string linesText makes, whatever the pieces cut", async () => {
    const wide = Array.from({ length: 1000 }, (_, i) => `{"id":${i},"note":"${"é✓𝄞".repeat(i % 7)}${"x".repeat(240)}"}`);
    const cases: TextLines[] = [
      { prefix: "j", bodies: wide },
      { prefix: "", bodies: wide.map((_, i) => String(i)) },
      { prefix: wide.map((_, i) => (i % 3 === 0 ? "c" : i % 3 === 1 ? "j" : "")), bodies: wide.map((b, i) => (i % 3 === 2 ? "" : b)) },
      { prefix: "c", bodies: ["short", "y".repeat(300_000), "after a huge line"] },
      { prefix: "", bodies: ["", ""] },
      { prefix: "j", bodies: [] },
    ];
    const input = new BinaryCopyInput();
    cases.forEach((lines, i) => input.row(5).int4(1000 + i).textLines(lines).text("ok").text(null).jsonb(undefined));
    await input.copy(client(), "COPY t (n, s, m, j, b) FROM STDIN");
    const { rows } = await client().query<{ n: number; s: string; m: string }>("SELECT n, s, m::text FROM t WHERE n BETWEEN 1000 AND 1999 ORDER BY n");
    expect(rows.map((r) => r.m)).toEqual(cases.map(() => "ok"));
    rows.forEach((r, i) => expect(r.s === linesText(cases[i]), `case ${i}`).toBe(true));
    expect(linesText(cases[4])).toBe("\n");
  });
});

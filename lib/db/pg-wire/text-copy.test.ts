// COPY text input against a real PostgreSQL: lines pushed whole (pushLines, pieces of ~64 KB) land
// exactly as lines pushed one by one, across many pieces, with escapes and non-ASCII text.
import { describe, expect, it } from "vitest";
import { useScratchClient } from "@/tests/support/db";
import { copyEscape, CopyInput } from "./text-copy";

const client = useScratchClient("ds_copy_in", "CREATE TABLE one_by_one (id int, label text); CREATE TABLE whole (id int, label text)");

describe("CopyInput", () => {
  it("pushLines gives the table push gives, over many pieces", { timeout: 60_000 }, async () => {
    const lines = Array.from({ length: 30_000 }, (_, i) => `${i}\t${copyEscape(i % 7 === 0 ? `tab\there ✓ ${"é".repeat(i % 50)}` : `row ${i}`)}`);
    const a = new CopyInput();
    for (const line of lines) a.push(`${line}\n`);
    await a.copy(client(), "COPY one_by_one FROM STDIN");
    const b = new CopyInput();
    b.pushLines(lines.slice(0, 10));
    b.pushLines(lines.slice(10));
    await b.copy(client(), "COPY whole FROM STDIN");
    const digest = async (table: string) =>
      (await client().query(`SELECT count(*)::int AS n, md5(string_agg(id || ':' || label, ',' ORDER BY id)) AS d FROM ${table}`)).rows[0];
    expect(await digest("whole")).toEqual(await digest("one_by_one"));
    expect((await digest("whole")).n).toBe(30_000);
    const empty = new CopyInput();
    empty.pushLines([]);
    await empty.copy(client(), "COPY whole FROM STDIN");
    expect((await digest("whole")).n).toBe(30_000);
  });
});

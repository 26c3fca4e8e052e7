// COPY text input against a real PostgreSQL: lines given whole as CopyData messages (CopyLines, pieces
// of ~64 KB, or a source's own messages held as bytes) land exactly as lines pushed one by one,
// across many pieces, with escapes and non-ASCII text.
import { describe, expect, it } from "vitest";
import { useScratchClient } from "@/tests/support/db";
import { copyIn } from "./copy-in";
import { heldBatch } from "@/tests/support/held-lines";
import { CopyLines, LineBatch } from "./line-batch";
import { copyEscape, CopyInput } from "./text-copy";

const client = useScratchClient(
  "ds_copy_in",
  "CREATE TABLE one_by_one (id int, label text); CREATE TABLE whole (id int, label text); CREATE TABLE held (id int, label text)",
);

describe("COPY text input", () => {
  it(
    "gives the same table from lines pushed one by one, texts framed in pieces, and held messages sent as they came",
    { timeout: 60_000 },
    async () => {
      const lines = Array.from(
        { length: 30_000 },
        (_, i) => `${i}\t${copyEscape(i % 7 === 0 ? `tab\there ✓ ${"é".repeat(i % 50)}` : `row ${i}`)}`,
      );
      const a = new CopyInput();
      for (const line of lines) a.push(`${line}\n`);
      await a.copy(client(), "COPY one_by_one FROM STDIN");
      const texts = CopyLines.ofTexts(lines).messages();
      expect(texts.length).toBeGreaterThan(5);
      await copyIn(client(), "COPY whole FROM STDIN", texts, true);
      // Every other line of a held batch, then the rest: runs of adjacent messages go as one slice each.
      const batch = heldBatch(lines, 1000);
      const odd = lines.map((_, i) => i).filter((i) => i % 2 === 1);
      const even = lines.map((_, i) => i).filter((i) => i % 2 === 0 && i < 20_000);
      const rest = lines.map((_, i) => i).filter((i) => i >= 20_000 && i % 2 === 0);
      const sent = [...odd, ...even, ...rest];
      await copyIn(
        client(),
        "COPY held FROM STDIN",
        CopyLines.ofLines(
          sent.map(() => batch),
          sent,
        ).messages(),
        true,
      );
      expect(
        CopyLines.ofLines(
          rest.map(() => batch),
          rest,
        ).lines(),
      ).toEqual(rest.map((i) => lines[i]));
      const digest = async (table: string) =>
        (
          await client().query(
            `SELECT count(*)::int AS n, md5(string_agg(id || ':' || label, ',' ORDER BY id)) AS d FROM ${table}`,
          )
        ).rows[0];
      expect(await digest("whole")).toEqual(await digest("one_by_one"));
      expect(await digest("held")).toEqual(await digest("one_by_one"));
      expect((await digest("whole")).n).toBe(30_000);
      await copyIn(client(), "COPY whole FROM STDIN", CopyLines.ofTexts([]).messages(), true);
      expect((await digest("whole")).n).toBe(30_000);
    },
  );

  it("reads a held line, its fields and its bytes as the text's, and keeps only the lines it compacts", () => {
    const lines = ["1\tplain", "2\tcafé ✓\t\\N", "3\t𝄞\\ttab", "40\t"];
    const batch = heldBatch(lines, 3);
    expect([...batch]).toEqual(lines);
    expect(lines.map((_, i) => batch.field(i, 0))).toEqual(["1", "2", "3", "40"]);
    expect(lines.map((_, i) => batch.field(i, 1))).toEqual(["plain", "café ✓", "𝄞\\ttab", ""]);
    expect(batch.field(1, 2)).toBe("\\N");
    for (const f of [0, 1, 2, 3])
      expect(batch.fields(f), `field ${f}`).toEqual(lines.map((_, i) => batch.field(i, f)));
    expect(LineBatch.ofTexts(lines).fields(1)).toEqual(batch.fields(1));
    expect(heldBatch([], 3).fields(0)).toEqual([]);
    const out = Buffer.alloc(64);
    lines.forEach((line, i) => {
      const n = batch.copyLine(i, out, 3);
      expect(out.toString("utf8", 3, 3 + n)).toBe(line);
      expect(n).toBeLessThanOrEqual(batch.maxBytes(i));
    });
    const compact = batch.compact([1, 3]);
    expect([...compact]).toEqual([lines[1], lines[3]]);
    expect(compact.bytes?.chunks).toHaveLength(1);
    expect(
      LineBatch.join([
        { batch, from: 1, to: 4 },
        { batch: compact, from: 0, to: 1 },
      ]).length,
    ).toBe(4);
    expect([
      ...LineBatch.join([
        { batch, from: 1, to: 4 },
        { batch: compact, from: 0, to: 1 },
      ]),
    ]).toEqual([...lines.slice(1), lines[1]]);
  });
});

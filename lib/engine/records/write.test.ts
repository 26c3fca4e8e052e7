// Blocks end at BLOCK_RECORDS records or once their texts pass BLOCK_CHARS, whichever comes first.
import { describe, expect, it } from "vitest";
import type { Outcome } from "../batch";
import { BLOCK_CHARS, BLOCK_RECORDS } from "./format";
import { linesText } from "@/lib/db/pg-wire/binary-copy-in";
import { LineBatch } from "@/lib/db/pg-wire/line-batch";
import { fingerprintAll } from "../fingerprints";
import { InsertedLines } from "../pass-through/line-items";
import { acceptedBlocks, recordBlocks } from "./write";

const outcome = (key: string, json: string, ok = true): Outcome => ({ item: { key, json, fingerprint: "", action: "destination_insert" }, ok, error: ok ? undefined : "refused" });

describe("recordBlocks", () => {
  it("cuts a batch into blocks of BLOCK_RECORDS, counting failures and keeping details only where there are some", () => {
    const outcomes = Array.from({ length: 2 * BLOCK_RECORDS + 500 }, (_, i) => outcome(String(i), `{"id":${i}}`, i !== 2 * BLOCK_RECORDS + 3));
    const blocks = recordBlocks(outcomes);
    expect(blocks.map((b) => b.size)).toEqual([BLOCK_RECORDS, BLOCK_RECORDS, 500]);
    expect(blocks.map((b) => b.failed)).toEqual([0, 0, 1]);
    expect(blocks.map((b) => b.details === null)).toEqual([true, true, false]);
    expect(linesText(blocks[2].keys).split("\n")[3]).toBe(String(2 * BLOCK_RECORDS + 3));
    expect(blocks[2].details?.split("\n")).toHaveLength(500);
  });

  it("ends a block early once its texts pass BLOCK_CHARS", () => {
    const huge = `{"text":"${"x".repeat(Math.ceil(BLOCK_CHARS * 0.6))}"}`;
    const blocks = recordBlocks([outcome("1", huge), outcome("2", huge), outcome("3", huge), outcome("4", "{}")]);
    expect(blocks.map((b) => b.size)).toEqual([2, 2]);
  });
});

describe("acceptedBlocks", () => {
  it("writes a batch accepted as columns exactly as recordBlocks writes its outcomes one by one", () => {
    // Keys a block line must quote (a leading quote), a duplicate left out of `kept`, and lines long
    // enough that BLOCK_CHARS ends blocks before BLOCK_RECORDS does.
    const texts = Array.from({ length: 3 * BLOCK_RECORDS }, (_, i) => `${i}\tname ${i}\t${"x".repeat(i % 7 === 0 ? Math.ceil(BLOCK_CHARS / 80) : 10)}`);
    const lines = LineBatch.ofTexts(texts);
    const kept = Int32Array.from(texts.keys()).filter((i) => i !== 5);
    const keys = Array.from(kept, (i) => (i === 9 ? `"quoted ${i}` : String(i)));
    const columns = new InsertedLines(keys, lines, kept, fingerprintAll("seed", Array.from(kept, (i) => texts[i])));
    const fromColumns = acceptedBlocks({ accepted: columns });
    const fromObjects = recordBlocks(columns.items().map((item): Outcome => ({ item, ok: true })));
    expect(fromColumns.length).toBeGreaterThan(3);
    const shape = (b: ReturnType<typeof recordBlocks>[number]) => ({ size: b.size, failed: b.failed, codes: b.codes, keys: linesText(b.keys), rows: linesText(b.rows), details: b.details });
    expect(fromColumns.map(shape)).toEqual(fromObjects.map(shape));
    expect(linesText(fromColumns[0].rows).split("\n")[5]).toBe(`c${texts[6]}`);
  });
});

// Blocks end at BLOCK_RECORDS records or once their texts pass BLOCK_CHARS, whichever comes first.
import { describe, expect, it } from "vitest";
import type { Outcome } from "../batch";
import { BLOCK_CHARS, BLOCK_RECORDS } from "./format";
import { linesText } from "@/lib/db/pg-wire/binary-copy-in";
import { recordBlocks } from "./write";

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

// How a batch's keys are grouped into ranges of state blocks (block-order.ts): one group for keys in
// order or in none, a group per ordered stream when a source merges streams, and keys between them
// left for rows.
import { describe, expect, it } from "vitest";
import { seededBelow } from "@/tests/support/random";
import { BLOCK_KEYS, blockKey, compareC, keyGroups } from "./block-order";

const ints = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => String(from + i));
function shuffled<T>(items: T[], seed: number): T[] {
  const below = seededBelow(seed);
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = below(i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}
const inBlockOrder = (keys: string[], positions: number[]) =>
  positions.every((p, j) => j === 0 || compareC(blockKey(keys[positions[j - 1]]), blockKey(keys[p])) < 0);

describe("keyGroups", () => {
  it("keeps a batch in key order, or in reverse, as one group without sorting", () => {
    const keys = ints(9, 200);
    expect(keyGroups(keys)).toEqual({ groups: [{ positions: keys.map((_, i) => i), low: blockKey("9"), high: blockKey("200") }], left: [] });
    const reversed = [...keys].reverse();
    const { groups, left } = keyGroups(reversed);
    expect(left).toEqual([]);
    expect(groups).toHaveLength(1);
    expect(inBlockOrder(reversed, groups[0].positions)).toBe(true);
  });

  it("orders negative integers and integers with leading zeros by their text, as the database does", () => {
    const keys = shuffled([...ints(1, 300).map((k) => `-${k}`), ...ints(1, 100).map((k) => k.padStart(4, "0"))], 11);
    const { groups, left } = keyGroups(keys);
    expect(left).toEqual([]);
    expect(groups).toHaveLength(1);
    expect(inBlockOrder(keys, groups[0].positions)).toBe(true);
    expect([groups[0].low, groups[0].high]).toEqual([blockKey("-1"), blockKey("0100")]);
  });

  it("sorts a batch in no order into one group (its range is checked whole)", () => {
    const keys = shuffled(ints(1, 500), 7);
    const { groups, left } = keyGroups(keys);
    expect(left).toEqual([]);
    expect(groups).toHaveLength(1);
    expect(groups[0].positions).toHaveLength(500);
    expect(inBlockOrder(keys, groups[0].positions)).toBe(true);
  });

  it("gives each ordered stream of a merged source its own group, and leaves a short stretch outside them", () => {
    // The end of one stream's run, then another's (ClickHouse's parallel reads), then a few keys below both.
    const keys = [...ints(500_001, 500_300), ...ints(60_001, 60_500), ...ints(10, 19)];
    const { groups, left } = keyGroups(keys);
    expect(groups.map((g) => [g.low, g.high])).toEqual([
      [blockKey("60001"), blockKey("60500")],
      [blockKey("500001"), blockKey("500300")],
    ]);
    expect(groups.map((g) => g.positions.length)).toEqual([500, 300]);
    expect(left.map((i) => keys[i])).toEqual(ints(10, 19));
  });

  it("splits integer keys where they jump from one stream's run to the next one's upwards", () => {
    const keys = [...ints(701, 1000), ...ints(20_001, 20_400)];
    const { groups, left } = keyGroups(keys);
    expect(groups.map((g) => [g.low, g.high])).toEqual([
      [blockKey("701"), blockKey("1000")],
      [blockKey("20001"), blockKey("20400")],
    ]);
    expect(left).toEqual([]);
    // Keys that step by about the same amount, gaps included, stay one group.
    const sparse = ints(1, 2000).filter((k) => Number(k) % 7 !== 0 || Number(k) === 700);
    expect(keyGroups(sparse).groups).toHaveLength(1);
  });

  it("joins ordered stretches whose ranges overlap, and a short stretch's keys inside their range, into one sorted group", () => {
    const evens = ints(1, 200).filter((k) => Number(k) % 2 === 0);
    const odds = ints(1, 200).filter((k) => Number(k) % 2 === 1);
    // "10a" sorts between "109" and "110"; "5000" after every key of the two stretches.
    const keys = [...evens, ...odds, "10a", "5000"];
    const { groups, left } = keyGroups(keys);
    expect(groups).toHaveLength(1);
    expect(groups[0].positions).toHaveLength(201);
    expect(inBlockOrder(keys, groups[0].positions)).toBe(true);
    expect(left.map((i) => keys[i])).toEqual(["5000"]);
    expect(BLOCK_KEYS).toBeLessThanOrEqual(100);
  });
});

// The cycle check refuses every list that would let syncs wait on each other, names the cycle in run
// order, and lets through lists that only look alike (diamonds, long chains, replacing a list).
import { describe, expect, it } from "vitest";
import { downstreamOf, findRunAfterCycle, type RunAfterEdge } from "./graph";

const edges = (...pairs: [number, number][]): RunAfterEdge[] => pairs.map(([syncId, upstreamSyncId]) => ({ syncId, upstreamSyncId }));

describe("findRunAfterCycle", () => {
  it("refuses a sync after itself", () => {
    expect(findRunAfterCycle([], 1, [1])).toEqual([1, 1]);
    expect(findRunAfterCycle(edges([2, 1]), 1, [3, 1])).toEqual([1, 1]);
  });

  it("finds a two-sync and a longer cycle, in the order the syncs would run", () => {
    // 2 runs after 1; making 1 run after 2 closes 1 → 2 → 1.
    expect(findRunAfterCycle(edges([2, 1]), 1, [2])).toEqual([1, 2, 1]);
    // A → B → C (B after A, C after B); A after C closes A → B → C → A.
    expect(findRunAfterCycle(edges([2, 1], [3, 2]), 1, [3])).toEqual([1, 2, 3, 1]);
  });

  it("finds a cycle through one of several upstreams", () => {
    expect(findRunAfterCycle(edges([2, 1], [3, 2], [4, 9]), 1, [4, 3])).toEqual([1, 2, 3, 1]);
  });

  it("lets diamonds, chains and fan-ins through", () => {
    // 2 and 3 after 1, 4 after 2 and 3.
    expect(findRunAfterCycle(edges([2, 1], [3, 1]), 4, [2, 3])).toBeNull();
    expect(findRunAfterCycle(edges([2, 1], [3, 2], [4, 3]), 5, [4, 1])).toBeNull();
    expect(findRunAfterCycle([], 1, [])).toBeNull();
  });

  it("judges the new list, not the one it replaces", () => {
    // 1 ran after 2; moving 2 after 1 is fine once 1's list no longer names 2.
    expect(findRunAfterCycle(edges([1, 2]), 2, [1])).toEqual([2, 1, 2]);
    expect(findRunAfterCycle(edges([1, 2], [3, 1]), 1, [])).toBeNull();
  });
});

describe("downstreamOf", () => {
  it("is the root and everything after it, once each, breadth-first", () => {
    // 1 → 2 → 4, 1 → 3 → 4, 5 unrelated, 6 after 4.
    const e = edges([2, 1], [3, 1], [4, 2], [4, 3], [5, 9], [6, 4]);
    expect(downstreamOf(e, 1)).toEqual([1, 2, 3, 4, 6]);
    expect(downstreamOf(e, 3)).toEqual([3, 4, 6]);
    expect(downstreamOf(e, 6)).toEqual([6]);
  });
});

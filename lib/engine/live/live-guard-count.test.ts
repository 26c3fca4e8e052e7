// How the live guard counts (live-guard.ts), without a server: across the rolling run, not per
// micro-batch; an approval's keys go on once without counting, others count; past the kept bound only
// the very set approved goes on.
import { describe, expect, it } from "vitest";
import type { Item } from "../batch";
import type { RunContext } from "../context";
import { changeKeysOf } from "../plan/change-keys";
import { LiveGuard, microBatchChanges } from "./live-guard";

const deletes = (from: number, to: number): Item[] =>
  Array.from({ length: to - from + 1 }, (_, i) => ({ key: String(from + i), fingerprint: "f", row: {}, action: "destination_delete" as const }));

function context(plan: unknown = null): RunContext {
  return {
    sync: { writeMode: "mirror", detectDeletes: false, guard: null, destinationCategory: null },
    run: { id: 1, plan },
    mapping: { identity: true },
    model: { primaryKey: "id" },
  } as unknown as RunContext;
}

async function guard(plan: unknown = null, tracked = 100): Promise<LiveGuard> {
  const g = await LiveGuard.for(context(plan), async () => tracked);
  if (!g) throw new Error("no guard in force");
  return g;
}

const go = async (g: LiveGuard, items: Item[]) => (await g.check(microBatchChanges(context(), items, 0, 0))).go;

describe("the live guard's count", () => {
  it("adds micro-batches up across the rolling run: slices under the 20% limit hold at the one that goes over", async () => {
    const g = await guard();
    expect(await go(g, deletes(1, 10))).toBe(true);
    expect(await go(g, deletes(11, 20))).toBe(true);
    const held = await g.check(microBatchChanges(context(), deletes(21, 30), 0, 0));
    expect(held.go).toBe(false);
    if (!held.go) {
      expect(held.plan.exceeded).toEqual(["would delete 30 of 100 tracked rows (30%), over the 20% limit"]);
      expect(held.plan.counts.delete).toBe(10);
      expect(held.plan.changes.delete.keys).toEqual(deletes(21, 30).map((i) => i.key).sort());
      expect(held.message).toContain("with the 0 updates and 20 deletes it already sent, would delete 30 of 100");
    }
  });

  it("lets the approved keys go once without counting; other keys count", async () => {
    const approval = { planned_at: "x", counts: {}, tracked: 100, full_read: false, changes: { update: changeKeysOf([]), delete: changeKeysOf(deletes(1, 50).map((i) => i.key)) } };
    const g = await guard({ approval });
    expect(await go(g, deletes(1, 50))).toBe(true);
    expect(await go(g, deletes(51, 70))).toBe(true);
    expect(await go(g, deletes(71, 71))).toBe(false);
    // A full read's approval (a backfill held by the ordinary guard) does not bind micro-batches.
    const backfill = await guard({ approval: { ...approval, full_read: true } });
    expect(await go(backfill, deletes(1, 50))).toBe(false);
  });

  it("past the kept keys, only the very set approved goes on, once", async () => {
    const keys = deletes(1, 50).map((i) => i.key);
    const approval = { planned_at: "x", counts: {}, tracked: 100, full_read: false, changes: { update: changeKeysOf([]), delete: { ...changeKeysOf(keys), keys: null } } };
    expect(await go(await guard({ approval }), deletes(1, 49))).toBe(false);
    const g = await guard({ approval });
    expect(await go(g, deletes(1, 50))).toBe(true);
    expect(await go(g, deletes(1, 50))).toBe(false);
  });
});

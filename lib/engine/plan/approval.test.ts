// What an approval binds to (approval.ts) and the keys a plan keeps for it (change-keys.ts): pure.
import { describe, expect, it } from "vitest";
import { DELETE_GUARD_DEFAULTS } from "@/lib/sync-rules/guard";
import { beyondApproval, deleteStoppers, isApprovedPlan, reapprovalMessage, updateBindingFor, updateRefusedMessage, type ApprovedPlan } from "./approval";
import { APPROVAL_MAX_KEYS, changeKeysOf } from "./change-keys";
import type { PlanCounts } from "./planner";

const counts = (c: Partial<PlanCounts>): PlanCounts => ({ read: 0, insert: 0, update: 0, delete: 0, skip: 0, unchanged: 0, duplicate: 0, blank_key: 0, ...c });
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => String(from + i));

/** A plan of a sync tracking 10 rows: `read` rows read, these deletes and updates. */
function plan(read: number, deletes: string[], updates: string[] = []): ApprovedPlan {
  return {
    planned_at: "2026-11-28T16:00:00.000Z",
    counts: counts({ read, delete: deletes.length, update: updates.length }),
    tracked: 10,
    full_read: true,
    changes: { delete: changeKeysOf(deletes), update: changeKeysOf(updates) },
  };
}

describe("change keys", () => {
  it("digest the set whatever the order, and keep the keys sorted up to the bound", () => {
    const a = changeKeysOf(["3", "1", "2"]);
    expect(a).toEqual(changeKeysOf(["2", "3", "1"]));
    expect(a.keys).toEqual(["1", "2", "3"]);
    expect(a.digest).toMatch(/^[0-9a-f]{32}$/);
    expect(changeKeysOf(["1", "2", "4"]).digest).not.toBe(a.digest);
    const many = changeKeysOf(range(1, APPROVAL_MAX_KEYS + 1));
    expect(many).toMatchObject({ count: APPROVAL_MAX_KEYS + 1, keys: null });
  });
});

describe("an approval binds to the plan that was shown", () => {
  const approved = plan(7, ["10", "8", "9"]);

  it("the same plan, or fewer of the same rows, goes on", () => {
    expect(beyondApproval(approved, plan(7, ["8", "9", "10"]))).toEqual([]);
    expect(beyondApproval(approved, plan(8, ["9"]))).toEqual([]);
    expect(beyondApproval(approved, plan(10, []))).toEqual([]);
  });

  it("the source emptied after approval: more deletes and an empty read are named", () => {
    const beyond = beyondApproval(approved, plan(0, range(1, 10)));
    expect(beyond).toEqual(["the model returns no rows now, 7 when it was approved", "10 deletes now, 3 approved"]);
    expect(reapprovalMessage(beyond, ["would delete 10 of 10 tracked rows (100%), over the 20% limit"])).toBe(
      "Stopped before writing anything: the source changed after approval: the model returns no rows now, 7 when it was approved; 10 deletes now, 3 approved. It would delete 10 of 10 tracked rows (100%), over the 20% limit. Approve the run again to go on, or cancel it.",
    );
  });

  it("as many deletes of other rows, or updates beyond the approved ones, hold it again", () => {
    expect(beyondApproval(approved, plan(7, ["1", "2", "3"]))).toEqual(['it would delete 3 rows the approved plan did not (key "1", "2", "3")']);
    expect(beyondApproval(approved, plan(7, ["8", "9", "1"]))).toEqual(['it would delete 1 row the approved plan did not (key "1")']);
    expect(beyondApproval(plan(10, [], ["1"]), plan(10, [], ["1", "2"]))).toEqual(["2 updates now, 1 approved"]);
    expect(beyondApproval(plan(10, [], ["1", "2", "3", "4", "5"]), plan(10, [], ["6", "7", "8", "9"]))).toEqual([
      'it would update 4 rows the approved plan did not (key "6", "7", "8", …)',
    ]);
  });

  it("past the bound of kept keys, only the very set approved goes on", () => {
    const big = range(1, APPROVAL_MAX_KEYS + 5);
    const bigPlan = { ...plan(1, big), tracked: big.length * 2 };
    expect(beyondApproval(bigPlan, { ...bigPlan })).toEqual([]);
    const other = [...big.slice(1), "x"];
    expect(beyondApproval(bigPlan, { ...plan(1, other), tracked: big.length * 2 })).toEqual([
      `${big.length.toLocaleString("en-US")} deletes now, of other rows than the ${big.length.toLocaleString("en-US")} approved (too many to compare one by one, so only the same rows may go on)`,
    ]);
    // Fewer, but not comparable key by key: held too (the digest says only "not the same set").
    expect(beyondApproval(bigPlan, { ...plan(1, big.slice(1)), tracked: big.length * 2 })).toHaveLength(1);
  });

  it("an approval from before keys were kept is not one this code binds to", () => {
    expect(isApprovedPlan(approved)).toBe(true);
    expect(isApprovedPlan({ counts: approved.counts, tracked: 10 })).toBe(false);
    expect(isApprovedPlan(null)).toBe(false);
  });
});

describe("the delete step's last check", () => {
  it("within the limits, deletes go on; over them, they stop unless approved for those rows", () => {
    expect(deleteStoppers(DELETE_GUARD_DEFAULTS, 10, changeKeysOf(["1", "2"]), null)).toEqual([]);
    expect(deleteStoppers(DELETE_GUARD_DEFAULTS, 10, changeKeysOf(range(1, 10)), null)).toEqual([
      "would delete 10 of 10 tracked rows (100%), over the 20% limit",
      "would delete every one of the 10 tracked rows (the model returned none of them), which is refused",
    ]);
    const approved = plan(7, ["8", "9", "10"]);
    expect(deleteStoppers(DELETE_GUARD_DEFAULTS, 10, changeKeysOf(["8", "9", "10"]), approved)).toEqual([]);
    expect(deleteStoppers(DELETE_GUARD_DEFAULTS, 10, changeKeysOf(range(1, 10)), approved)).toEqual(["10 deletes now, 3 approved"]);
    // The delete limit off: every tracked row gone still trips the empty-extract check.
    const noDeleteLimit = { ...DELETE_GUARD_DEFAULTS, max_delete_percent: null };
    expect(deleteStoppers(noDeleteLimit, 10, changeKeysOf(range(1, 9)), null)).toEqual([]);
    expect(deleteStoppers(noDeleteLimit, 10, changeKeysOf(range(1, 10)), null)).toHaveLength(1);
  });
});

describe("the updates an approved run writes", () => {
  /** Every refusal of the keys in order, null where the update may be written. */
  const admit = (approved: ApprovedPlan, keys: string[]) => {
    const binding = updateBindingFor({ planned_at: approved.planned_at, approval: approved });
    if (binding === null) throw new Error("no binding");
    return keys.map((k) => binding.refusal(k));
  };

  it("no approval, or one from before keys were kept, binds nothing", () => {
    expect(updateBindingFor(null)).toBeNull();
    expect(updateBindingFor({ planned_at: "2026-11-28T16:00:00.000Z", counts: counts({}) })).toBeNull();
    expect(updateBindingFor({ approval: { counts: counts({ update: 1 }), tracked: 10 } })).toBeNull();
  });

  it("the approved rows, or fewer of them, go on; another row is refused by its key", () => {
    const approved = plan(10, [], ["1", "2", "3"]);
    expect(admit(approved, ["3", "1", "2"])).toEqual([null, null, null]);
    expect(admit(approved, ["2"])).toEqual([null]);
    expect(admit(approved, ["1", "7"])).toEqual([null, 'it would update row "7" the approved plan did not']);
    expect(admit(plan(10, []), ["1"])).toEqual(['it would update row "1" the approved plan did not']);
    expect(updateRefusedMessage('it would update row "7" the approved plan did not')).toBe(
      'Nothing more was written: the source changed after approval: it would update row "7" the approved plan did not. Run the sync again: it plans again, and its limits hold it for approval if it still would.',
    );
  });

  it("past the bound of kept keys, only the approved count goes on", () => {
    const big = range(1, APPROVAL_MAX_KEYS + 1);
    const approved = plan(10, [], big);
    expect(approved.changes.update.keys).toBeNull();
    const refusals = admit(approved, [...range(100_001, 100_000 + big.length), "x"]);
    expect(refusals.slice(0, -1).every((r) => r === null)).toBe(true);
    expect(refusals.at(-1)).toBe(`it would update more rows than the ${big.length.toLocaleString("en-US")} approved`);
  });
});

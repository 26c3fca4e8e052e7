import { describe, expect, it } from "vitest";
import { approvalMessage, effectiveGuard, guardInForce, guardViolations } from "./guard";

const sync = (over: Partial<Parameters<typeof effectiveGuard>[0]> = {}) => ({ writeMode: "upsert" as const, detectDeletes: false, guard: null, ...over });
const facts = { tracked: 1000, keyed: 50, update: 0, delete: 950, fullRead: true };

describe("the blast-radius guard", () => {
  it("is on by default only for syncs that delete: 20% deletes and no empty extract", () => {
    expect(guardInForce(sync())).toBe(false);
    expect(effectiveGuard(sync({ writeMode: "mirror" }))).toEqual({ max_delete_percent: 20, max_change_percent: null, refuse_empty_extract: true });
    expect(guardInForce(sync({ detectDeletes: true }))).toBe(true);
  });

  it("takes what was set, null turning a limit off; a delete limit alone does not bind a sync that never deletes", () => {
    expect(effectiveGuard(sync({ writeMode: "mirror", guard: { max_delete_percent: null, refuse_empty_extract: false } }))).toEqual({
      max_delete_percent: null,
      max_change_percent: null,
      refuse_empty_extract: false,
    });
    expect(guardInForce(sync({ writeMode: "mirror", guard: { max_delete_percent: null, refuse_empty_extract: null } }))).toBe(false);
    expect(guardInForce(sync({ guard: { max_delete_percent: 5 } }))).toBe(false);
    expect(guardInForce(sync({ guard: { max_change_percent: 5 } }))).toBe(true);
    // Junk in the column counts as left out.
    expect(effectiveGuard(sync({ writeMode: "mirror", guard: { max_delete_percent: "x" } })).max_delete_percent).toBe(20);
  });

  it("states the numbers of each limit exceeded", () => {
    const guard = effectiveGuard(sync({ writeMode: "mirror", guard: { max_change_percent: 50 } }));
    const violations = guardViolations(guard, facts);
    expect(violations).toEqual([
      "would delete 950 of 1,000 tracked rows (95%), over the 20% limit",
      "would change 950 of 1,000 tracked rows (95%: 0 updates, 950 deletes), over the 50% limit",
    ]);
    expect(approvalMessage(violations.slice(0, 1))).toBe(
      "Stopped before writing anything: it would delete 950 of 1,000 tracked rows (95%), over the 20% limit. Approve the run to go on, or cancel it.",
    );
    // At the limit is allowed; a first sync (nothing tracked) trips no percentage; an incremental read is never "empty".
    expect(guardViolations(guard, { ...facts, delete: 200 })).toEqual([]);
    expect(guardViolations(guard, { ...facts, tracked: 0, keyed: 0 })).toEqual([]);
    expect(guardViolations(guard, { ...facts, keyed: 0, delete: 0, fullRead: false })).toEqual([]);
    expect(guardViolations(guard, { ...facts, keyed: 0, delete: 0 })).toEqual([
      "would run on an empty extract (the model returned no rows while the sync tracks 1,000), which is refused",
    ]);
  });
});

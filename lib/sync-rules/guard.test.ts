import { describe, expect, it } from "vitest";
import { approvalMessage, effectiveGuard, guardInForce, guardSettings, guardViolations, onlyTrackedLimits } from "./guard";

const sync = (over: Partial<Parameters<typeof effectiveGuard>[0]> = {}) => ({ writeMode: "upsert" as const, detectDeletes: false, guard: null, ...over });
const facts = { tracked: 1000, keyed: 50, update: 0, delete: 950, fullRead: true };

describe("the blast-radius guard", () => {
  it("is on by default only for syncs that delete: 20% deletes and no empty extract", () => {
    expect(guardInForce(sync())).toBe(false);
    expect(effectiveGuard(sync({ writeMode: "mirror" }))).toEqual({ max_delete_percent: 20, max_change_percent: null, max_change_rows: null, refuse_empty_extract: true });
    expect(guardInForce(sync({ detectDeletes: true }))).toBe(true);
  });

  it("reads a stored row limit as a whole number of rows, and a percentage as 0–100; anything else is left out", () => {
    expect(guardSettings({ max_change_rows: 10, max_change_percent: 12.5 })).toMatchObject({ max_change_rows: 10, max_change_percent: 12.5 });
    expect(guardSettings({ max_change_rows: 1.5, max_delete_percent: 150 })).toMatchObject({ max_change_rows: undefined, max_delete_percent: undefined });
    expect(guardSettings({ max_change_rows: -3 }).max_change_rows).toBeUndefined();
    expect(guardSettings({ max_change_rows: null }).max_change_rows).toBeNull();
  });

  it("knows when every limit in force is measured against tracked rows (a first run need not plan)", () => {
    expect(onlyTrackedLimits(sync({ destinationCategory: "CRM" }))).toBe(true);
    expect(onlyTrackedLimits(sync({ writeMode: "mirror" }))).toBe(true);
    expect(onlyTrackedLimits(sync({ destinationCategory: "CRM", guard: { max_change_rows: 100 } }))).toBe(false);
  });

  it("takes what was set, null turning a limit off; a delete limit alone does not bind a sync that never deletes", () => {
    expect(effectiveGuard(sync({ writeMode: "mirror", guard: { max_delete_percent: null, refuse_empty_extract: false } }))).toEqual({
      max_delete_percent: null,
      max_change_percent: null,
      max_change_rows: null,
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

  describe("on updates", () => {
    const hubspot = (over: Partial<Parameters<typeof effectiveGuard>[0]> = {}) => sync({ destinationCategory: "CRM", ...over });
    // One null-policy edit: every delivered row's fingerprint changes, so the next run updates them all.
    const resend = { tracked: 300_000, keyed: 300_000, update: 299_997, delete: 0, fullRead: true };

    it("holds a SaaS destination's run that would update more than half of what the sync delivered, by default", () => {
      expect(effectiveGuard(hubspot())).toEqual({ max_delete_percent: null, max_change_percent: 50, max_change_rows: null, refuse_empty_extract: false });
      expect(guardInForce(hubspot())).toBe(true);
      expect(guardViolations(effectiveGuard(hubspot()), resend)).toEqual([
        "would change 299,997 of 300,000 tracked rows (100%: 299,997 updates, 0 deletes), over the 50% limit",
      ]);
      // Ordinary churn goes on; so does exactly half.
      expect(guardViolations(effectiveGuard(hubspot()), { ...resend, update: 150_000 })).toEqual([]);
      // Mirror keeps its delete defaults beside it.
      expect(effectiveGuard(hubspot({ writeMode: "mirror" }))).toEqual({ max_delete_percent: 20, max_change_percent: 50, max_change_rows: null, refuse_empty_extract: true });
    });

    it("leaves database, warehouse and unknown destinations as they were: no limit on updates unless set", () => {
      for (const destinationCategory of ["Database", "Data Warehouse", "File Storage", "HTTP", "Message Broker", undefined, null, "Nonsense"]) {
        expect(effectiveGuard(sync({ destinationCategory })).max_change_percent).toBeNull();
        expect(guardInForce(sync({ destinationCategory }))).toBe(false);
      }
      expect(guardViolations(effectiveGuard(sync({ destinationCategory: "Database" })), resend)).toEqual([]);
    });

    it("lets the sync's settings turn the SaaS default off or change it", () => {
      expect(guardInForce(hubspot({ guard: { max_change_percent: null } }))).toBe(false);
      expect(guardViolations(effectiveGuard(hubspot({ guard: { max_change_percent: null } })), resend)).toEqual([]);
      expect(effectiveGuard(hubspot({ guard: { max_change_percent: 95 } })).max_change_percent).toBe(95);
      // guard: null (all defaults) keeps the SaaS default.
      expect(effectiveGuard(hubspot({ guard: null })).max_change_percent).toBe(50);
    });

    it("caps the rows a run may change, counted from the first run on", () => {
      const capped = effectiveGuard(sync({ destinationCategory: "Database", guard: { max_change_rows: 1000 } }));
      expect(guardInForce(sync({ guard: { max_change_rows: 1000 } }))).toBe(true);
      expect(guardViolations(capped, { ...resend, update: 1000 })).toEqual([]);
      expect(guardViolations(capped, { ...resend, update: 900, delete: 101 })).toEqual([
        "would change 1,001 rows (900 updates, 101 deletes), over the limit of 1,000 rows",
      ]);
      // Update mode counts rows new to the sync as updates: a cap binds even with nothing tracked.
      expect(guardViolations(capped, { tracked: 0, keyed: 5000, update: 5000, delete: 0, fullRead: true })).toEqual([
        "would change 5,000 rows (5,000 updates, 0 deletes), over the limit of 1,000 rows",
      ]);
      // Junk in the column counts as left out.
      expect(effectiveGuard(sync({ guard: { max_change_rows: "many" } })).max_change_rows).toBeNull();
    });
  });
});

// Who a refused plan-with-changes names: an API token with its own narrower role is refused by that
// role, not by its owner's (which may well update syncs).
import { describe, expect, it } from "vitest";
import { Forbidden } from "@/lib/errors";
import { intersect, SYSTEM_ROLES, type Policies } from "@/lib/auth/permissions";
import { assertMayPropose } from "./proposal";

const runsSyncs: Policies = { permissions: { sync: { create: true, read: true, update: false, delete: false } } };
const admin = SYSTEM_ROLES[0].policies;

function refusal(auth: Parameters<typeof assertMayPropose>[0]): string {
  try {
    assertMayPropose(auth);
  } catch (err) {
    expect(err).toBeInstanceOf(Forbidden);
    return (err as Error).message;
  }
  throw new Error("not refused");
}

describe("proposing unsaved changes to a plan", () => {
  it("names the API token's own role when that role may create syncs but not update them", () => {
    const message = refusal({
      workspaceId: 1,
      roleName: "Admin",
      policies: intersect(admin, runsSyncs),
      apiToken: { id: 1, roleId: 7, expiresAt: null, role: { name: "runs-syncs", policies: runsSyncs } },
    });
    expect(message).toBe('This API token has the runs-syncs role, which may not update syncs, so it may plan only the saved sync: leave out "sync".');
    expect(message).not.toContain("Admin");
  });

  it("names the member's own role when signed in", () => {
    expect(refusal({ workspaceId: 1, roleName: "runs-syncs", policies: runsSyncs })).toBe(
      'Your role (runs-syncs) may not update syncs, so it may plan only the saved sync: leave out "sync".',
    );
  });

  it("lets a role that may update syncs propose", () => {
    expect(() => assertMayPropose({ workspaceId: 1, roleName: "Admin", policies: admin })).not.toThrow();
  });
});

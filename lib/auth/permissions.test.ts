import { describe, expect, it } from "vitest";
import { can, exceeding, intersect, RESOURCES, SYSTEM_ROLES, within } from "./permissions";

const role = (name: string) => SYSTEM_ROLES.find((r) => r.name === name)!.policies;

describe("permission matrix", () => {
  it("gives Admin everything", () => {
    for (const r of RESOURCES) expect(can(role("Admin"), r, "delete")).toBe(true);
  });
  it("gives Member CRUD on data resources, workspace read only, no user management", () => {
    expect(can(role("Member"), "sync", "create")).toBe(true);
    expect(can(role("Member"), "workspace", "read")).toBe(true);
    expect(can(role("Member"), "workspace", "update")).toBe(false);
    expect(can(role("Member"), "user", "read")).toBe(false);
    expect(can(role("Member"), "role", "create")).toBe(false);
  });
  it("gives Viewer read only", () => {
    expect(can(role("Viewer"), "sync_record", "read")).toBe(true);
    expect(can(role("Viewer"), "sync", "create")).toBe(false);
    expect(can(role("Viewer"), "user", "read")).toBe(false);
  });
  it("never widens a role by intersection", () => {
    const narrowed = intersect(role("Viewer"), role("Admin"));
    expect(can(narrowed, "sync", "update")).toBe(false);
    expect(can(narrowed, "sync", "read")).toBe(true);
  });
});

describe("exceeding / within", () => {
  it("names exactly what a grant would add beyond the holder's rights", () => {
    expect(exceeding(role("Admin"), role("Member"))).toEqual([]);
    expect(within(role("Member"), role("Viewer"))).toBe(true);
    expect(exceeding(role("Member"), role("Admin"))).toEqual(
      expect.arrayContaining(["workspace.update", "user.create", "role.delete"]),
    );
    expect(exceeding(role("Member"), role("Admin"))).not.toContain("sync.create");
    // A missing resource counts as no permission on either side.
    expect(
      exceeding(
        { permissions: {} },
        { permissions: { sync: { create: false, read: true, update: false, delete: false } } },
      ),
    ).toEqual(["sync.read"]);
    expect(within({ permissions: {} }, { permissions: {} })).toBe(true);
  });
});

import { describe, expect, it } from "vitest";
import { can, intersect, RESOURCES, SYSTEM_ROLES } from "./permissions";

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

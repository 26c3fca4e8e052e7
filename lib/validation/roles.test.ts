import { describe, expect, it } from "vitest";
import { can, SYSTEM_ROLES } from "@/lib/auth/permissions";
import { parsePolicies, rolePolicies } from "./roles";

describe("parsePolicies", () => {
  it("reads a stored role's policies, filling what is left out with false", () => {
    const policies = parsePolicies({ permissions: { sync: { read: true, update: true } } }, "role 7");
    expect(policies.permissions.sync).toEqual({ create: false, read: true, update: true, delete: false });
    expect(policies.permissions.connector).toEqual({ create: false, read: false, update: false, delete: false });
    expect(can(policies, "sync", "update")).toBe(true);
    expect(can(policies, "sync", "delete")).toBe(false);
  });

  it("reads the system roles' policies as they are seeded", () => {
    for (const role of SYSTEM_ROLES) {
      expect(rolePolicies({ id: 1, policies: role.policies })).toEqual(role.policies);
    }
  });

  it.each([
    ["null", null, /\(root\)/],
    ["a string", "admin", /\(root\)/],
    ["no permissions", {}, /permissions/],
    ["an unknown resource", { permissions: { everything: { read: true } } }, /permissions/],
    ["an unknown action", { permissions: { sync: { execute: true } } }, /permissions\.sync/],
    ["a non-boolean action", { permissions: { sync: { read: "yes" } } }, /permissions\.sync\.read/],
  ])("refuses malformed JSON (%s) with an error naming the role and the place", (_, json, where) => {
    expect(() => rolePolicies({ id: 42, policies: json })).toThrow(/^Malformed stored policies of role 42: /);
    expect(() => rolePolicies({ id: 42, policies: json })).toThrow(where);
  });
});

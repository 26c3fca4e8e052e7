import { describe, expect, it } from "vitest";
import { can, SYSTEM_ROLES } from "@/lib/auth/permissions";
import { prisma } from "@/lib/db/client";
import { Conflict, Forbidden, NotFound, ValidationFailed } from "@/lib/errors";
import { useTestDatabase } from "@/tests/support/db";
import { newMember, signedIn, systemRoleId } from "@/tests/support/auth-fixtures";
import {
  assertWithin,
  createRole,
  deleteRole,
  getRole,
  listRoles,
  updateRole,
} from "./roles";
import { normalizePolicies, rolePolicies } from "@/lib/validation/roles";
import { createApiToken } from "./api-tokens";

useTestDatabase();

const readSyncs = { permissions: { sync: { read: true } } };

describe("roles", () => {
  it("creates a custom role with complete policies, audited, listed after the system roles", async () => {
    const { auth } = await newMember("Admin");
    const role = await createRole(auth, {
      role_name: "Sync reader",
      role_desc: "reads syncs",
      policies: readSyncs,
    });
    expect(role.roleType).toBe("custom");
    expect(role.workspaceId).toBe(auth.workspaceId);
    const policies = rolePolicies(role);
    expect(can(policies, "sync", "read")).toBe(true);
    expect(policies.permissions.sync).toEqual({ create: false, read: true, update: false, delete: false });
    expect(policies.permissions.connector).toEqual({
      create: false,
      read: false,
      update: false,
      delete: false,
    });
    const names = (await listRoles(auth.workspaceId)).map((r) => r.name);
    expect(names).toEqual(["Admin", "Member", "Viewer", "Sync reader"]);
    const log = await prisma().auditLog.findFirstOrThrow({
      where: { workspaceId: auth.workspaceId, resourceType: "role" },
    });
    expect(log).toMatchObject({ action: "create", resourceId: String(role.id), userId: auth.user.id });
  });

  it("rejects a name taken by a system role or another custom role (case-insensitive)", async () => {
    const { auth } = await newMember("Admin");
    await expect(createRole(auth, { role_name: "admin", policies: readSyncs })).rejects.toBeInstanceOf(
      Conflict,
    );
    await createRole(auth, { role_name: "Ops", policies: readSyncs });
    await expect(createRole(auth, { role_name: "OPS", policies: readSyncs })).rejects.toThrow(
      /already exists/,
    );
  });

  it("keeps custom roles inside their workspace", async () => {
    const a = await newMember("Admin");
    const b = await newMember("Admin");
    const role = await createRole(a.auth, { role_name: "Private", policies: readSyncs });
    await expect(getRole(b.auth.workspaceId, role.id)).rejects.toBeInstanceOf(NotFound);
    await expect(updateRole(b.auth, role.id, { role_desc: "x" })).rejects.toBeInstanceOf(NotFound);
    await expect(deleteRole(b.auth, role.id)).rejects.toBeInstanceOf(NotFound);
    expect((await listRoles(b.auth.workspaceId)).map((r) => r.name)).not.toContain("Private");
  });

  it("refuses to change or delete a system role with 403", async () => {
    const { auth } = await newMember("Admin");
    const viewer = await systemRoleId("Viewer");
    await expect(updateRole(auth, viewer, { role_desc: "hacked" })).rejects.toBeInstanceOf(Forbidden);
    await expect(deleteRole(auth, viewer)).rejects.toThrow(/system role and cannot be deleted/);
  });

  it("updates name, description and policies", async () => {
    const { auth } = await newMember("Admin");
    const role = await createRole(auth, { role_name: "R1", policies: readSyncs });
    const updated = await updateRole(auth, role.id, {
      role_name: "R2",
      role_desc: "now writes",
      policies: { permissions: { sync: { read: true, update: true } } },
    });
    expect(updated).toMatchObject({ name: "R2", description: "now writes" });
    expect(can(rolePolicies(updated), "sync", "update")).toBe(true);
  });

  it("refuses to delete a role held by a member or a live API token, allows it afterwards", async () => {
    const admin = await newMember("Admin");
    const role = await createRole(admin.auth, { role_name: "Temp", policies: readSyncs });
    const other = await newMember("Viewer", admin.workspaceId);
    await prisma().workspaceUser.updateMany({ where: { userId: other.user.id }, data: { roleId: role.id } });
    await expect(deleteRole(admin.auth, role.id)).rejects.toThrow(
      /in use by 1 member\(s\) and 0 API token\(s\)/,
    );
    await prisma().workspaceUser.updateMany({
      where: { userId: other.user.id },
      data: { roleId: await systemRoleId("Viewer") },
    });
    const token = await createApiToken(admin.auth, { name: "t", role_id: role.id });
    await expect(deleteRole(admin.auth, role.id)).rejects.toBeInstanceOf(Conflict);
    await prisma().apiToken.update({ where: { id: token.id }, data: { revokedAt: new Date() } });
    await deleteRole(admin.auth, role.id);
    expect(await prisma().role.findUnique({ where: { id: role.id } })).toBeNull();
    expect((await prisma().apiToken.findUniqueOrThrow({ where: { id: token.id } })).roleId).toBeNull();
  });

  it("assertWithin names the permissions a grant would add", () => {
    const member = SYSTEM_ROLES.find((r) => r.name === "Member")!.policies;
    const admin = SYSTEM_ROLES.find((r) => r.name === "Admin")!.policies;
    expect(() => assertWithin(admin, member, "x")).not.toThrow();
    expect(() => assertWithin(member, admin, "The role Admin")).toThrow(/workspace\.create/);
    expect(normalizePolicies({ permissions: {} }).permissions.alert).toEqual({
      create: false,
      read: false,
      update: false,
      delete: false,
    });
    expect(ValidationFailed).toBeDefined();
  });

  it("lets nobody widen the role they hold, create or reach beyond their rights", async () => {
    const admin = await newMember("Admin");
    const all = { create: true, read: true, update: true, delete: true };
    const keeperRole = await createRole(admin.auth, {
      role_name: "Keeper",
      policies: { permissions: { role: all, sync: { read: true } } },
    });
    const keeper = await newMember("Viewer", admin.workspaceId);
    await prisma().workspaceUser.updateMany({
      where: { userId: keeper.user.id },
      data: { roleId: keeperRole.id },
    });
    const auth = await signedIn(keeper.user.id, admin.workspaceId);
    await expect(
      updateRole(auth, keeperRole.id, { policies: { permissions: { connector: all } } }),
    ).rejects.toThrow(/You hold the role Keeper through your membership/);
    await expect(deleteRole(auth, keeperRole.id)).rejects.toBeInstanceOf(Forbidden);
    await expect(
      createRole(auth, { role_name: "Up", policies: { permissions: { connector: { read: true } } } }),
    ).rejects.toThrow(/connector\.read/);
    const wide = await createRole(admin.auth, {
      role_name: "Wide",
      policies: { permissions: { connector: all } },
    });
    await expect(updateRole(auth, wide.id, { role_desc: "x" })).rejects.toThrow(
      /may not change the role Wide/,
    );
    const mine = await createRole(auth, { role_name: "Mine", policies: readSyncs });
    await expect(
      updateRole(auth, mine.id, { policies: { permissions: { sync: { read: true, update: true } } } }),
    ).rejects.toThrow(/sync\.update/);
    expect((await updateRole(auth, mine.id, { role_desc: "ok" })).description).toBe("ok");
    // Nothing moved.
    expect((await getRole(admin.workspaceId, keeperRole.id)).policies).toEqual(keeperRole.policies);
  });
});

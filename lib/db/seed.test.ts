import { beforeEach, describe, expect, it } from "vitest";
import { verifyPassword } from "@/lib/auth/password";
import { prisma } from "@/lib/db/client";
import { useTestDatabase } from "@/tests/support/db";
import { seed } from "./seed";

useTestDatabase();

describe("seed", () => {
  beforeEach(async () => {
    await prisma().workspaceUser.deleteMany();
    await prisma().user.deleteMany();
    await prisma().workspace.deleteMany();
  });

  it("creates the system roles and one admin, and is idempotent", async () => {
    const first = await seed({ ADMIN_EMAIL: "Boss@Example.com", ADMIN_PASSWORD: "correct horse battery" });
    expect(first.createdAdmin).toEqual({ email: "boss@example.com", generatedPassword: undefined });
    const second = await seed({ ADMIN_EMAIL: "other@example.com", ADMIN_PASSWORD: "x" });
    expect(second.createdAdmin).toBeUndefined();

    const roles = await prisma().role.findMany({ where: { roleType: "system" }, orderBy: { id: "asc" } });
    expect(roles.map((r) => r.name)).toEqual(["Admin", "Member", "Viewer"]);
    const users = await prisma().user.findMany({ include: { memberships: { include: { role: true } } } });
    expect(users).toHaveLength(1);
    expect(users[0].memberships[0].role.name).toBe("Admin");
    expect(await verifyPassword("correct horse battery", users[0].passwordHash)).toBe(true);
    expect(await prisma().workspace.count()).toBe(1);
  });

  it("refuses an ADMIN_PASSWORD too easy to guess and creates nobody", async () => {
    await expect(seed({ ADMIN_PASSWORD: "Password1" })).rejects.toThrow(/^ADMIN_PASSWORD is too easy to guess \(it is a commonly used password\); make it stronger/);
    expect(await prisma().user.count()).toBe(0);
  });

  it("generates a password when none is given", async () => {
    const result = await seed({});
    expect(result.createdAdmin?.generatedPassword).toMatch(/^[\w-]{16}$/);
    const user = await prisma().user.findFirstOrThrow();
    expect(await verifyPassword(result.createdAdmin!.generatedPassword!, user.passwordHash)).toBe(true);
  });

  it("keeps system role policies in step with the code", async () => {
    await seed({ ADMIN_PASSWORD: "a-fine-admin-password" });
    await prisma().role.updateMany({ where: { name: "Viewer" }, data: { policies: { permissions: {} } } });
    await seed({});
    const viewer = await prisma().role.findFirstOrThrow({ where: { name: "Viewer" } });
    expect((viewer.policies as { permissions: Record<string, { read: boolean }> }).permissions.sync.read).toBe(true);
  });
});

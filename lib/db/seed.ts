// Idempotent seed, run at every start: the three system roles (policies kept in step with the code)
// and, on an empty database, a first admin in a default workspace.
import { randomBytes } from "node:crypto";
import { hashPassword } from "@/lib/auth/password";
import { passwordWeakness } from "@/lib/auth/password-policy";
import { SYSTEM_ROLES } from "@/lib/auth/permissions";
import { env, type Env } from "@/lib/settings/env";
import { prisma } from "./client";

export interface SeedResult {
  createdAdmin?: { email: string; generatedPassword?: string };
}

export async function seedSystemRoles(): Promise<void> {
  const db = prisma();
  for (const role of SYSTEM_ROLES) {
    const existing = await db.role.findFirst({ where: { workspaceId: null, name: role.name, roleType: "system" } });
    const data = { description: role.description, policies: role.policies };
    if (existing) await db.role.update({ where: { id: existing.id }, data });
    else await db.role.create({ data: { ...data, name: role.name, roleType: "system" } });
  }
}

/** `firstAdmin`: the first admin's email and password; ADMIN_EMAIL / ADMIN_PASSWORD unless given. */
export async function seed(firstAdmin: Partial<Pick<Env, "ADMIN_EMAIL" | "ADMIN_PASSWORD">> = env): Promise<SeedResult> {
  await seedSystemRoles();
  const db = prisma();
  if ((await db.user.count()) > 0) return {};
  const email = (firstAdmin.ADMIN_EMAIL ?? env.ADMIN_EMAIL).trim().toLowerCase();
  const generatedPassword = firstAdmin.ADMIN_PASSWORD ? undefined : randomBytes(12).toString("base64url");
  const password = firstAdmin.ADMIN_PASSWORD ?? generatedPassword!;
  const weakness = passwordWeakness(password, [email]);
  if (weakness !== null) throw new Error(`ADMIN_PASSWORD ${weakness}.`);
  const admin = await db.role.findFirstOrThrow({ where: { workspaceId: null, name: "Admin" } });
  const passwordHash = await hashPassword(password);
  // One transaction and a unique email: two processes seeding at once create one admin.
  try {
    await db.$transaction(async (tx) => {
      const user = await tx.user.create({ data: { email, name: "Admin", passwordHash } });
      const workspace = await tx.workspace.create({ data: { name: "Default workspace", slug: "default" } });
      await tx.workspaceUser.create({ data: { userId: user.id, workspaceId: workspace.id, roleId: admin.id, joinedAt: new Date() } });
    });
  } catch (err) {
    if ((await db.user.count()) > 0) return {};
    throw err;
  }
  return { createdAdmin: { email, generatedPassword } };
}

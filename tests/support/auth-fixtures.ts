// Test fixtures for the access services: users in workspaces with a system role, and the real
// AuthContext a request of theirs would get (through signToken + authenticate, not a hand-made one).
import { randomBytes } from "node:crypto";
import { signToken } from "@/lib/auth/jwt";
import { hashPassword } from "@/lib/auth/password";
import { prisma } from "@/lib/db/client";
import { seedSystemRoles } from "@/lib/db/seed";
import { authenticate, type AuthContext } from "@/lib/services/accounts/auth-context";

export type SystemRoleName = "Admin" | "Member" | "Viewer";

let passwordHash: string | undefined;
export const FIXTURE_PASSWORD = "fixture-password";

export async function systemRoleId(name: SystemRoleName): Promise<number> {
  await seedSystemRoles();
  return (await prisma().role.findFirstOrThrow({ where: { workspaceId: null, name } })).id;
}

export async function newWorkspace(name = "Test workspace"): Promise<number> {
  const ws = await prisma().workspace.create({ data: { name, slug: `t-${randomBytes(4).toString("hex")}` } });
  return ws.id;
}

/** A new user with `role` in `workspaceId` (a new workspace when absent), signed in there. */
export async function newMember(role: SystemRoleName = "Admin", workspaceId?: number) {
  passwordHash ??= await hashPassword(FIXTURE_PASSWORD);
  const ws = workspaceId ?? (await newWorkspace());
  const user = await prisma().user.create({
    data: { email: `u-${randomBytes(4).toString("hex")}@example.com`, name: `${role} user`, passwordHash },
  });
  await prisma().workspaceUser.create({
    data: { workspaceId: ws, userId: user.id, roleId: await systemRoleId(role), joinedAt: new Date() },
  });
  const auth = await signedIn(user.id, ws);
  return { user, workspaceId: ws, auth };
}

export async function signedIn(userId: number, workspaceId?: number): Promise<AuthContext> {
  const { token } = await signToken({ userId, kind: "session" });
  return authenticate(token, workspaceId ? String(workspaceId) : null);
}

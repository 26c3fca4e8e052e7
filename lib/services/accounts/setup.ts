// First run: while no user exists (SKIP_ADMIN_SEED=1, or the only admin was deleted) anyone who can
// reach the console may create the first admin, once. Afterwards the endpoint answers 409.
import "server-only";
import type { SetupInput } from "@/lib/validation/setup";
import { hashPassword } from "@/lib/auth/password";
import { assertStrongPassword } from "@/lib/auth/password-policy";
import { prisma } from "@/lib/db/client";
import { seedSystemRoles } from "@/lib/db/seed";
import { Conflict } from "@/lib/errors";

// Serialises concurrent first-run requests: only one can create the first user.
const SETUP_LOCK = 724_011;

export async function needsSetup(): Promise<boolean> {
  return (await prisma().user.count()) === 0;
}

function slugify(name: string): string {
  const base = name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "").slice(0, 40) || "workspace";
  return `${base}-${Math.random().toString(36).slice(2, 8)}`;
}

/**
 * Creates the first admin. Existing workspaces (left behind by a deleted admin) are kept and the
 * new admin becomes their Admin; with none, a first workspace is created.
 */
export async function createFirstAdmin(input: SetupInput) {
  await seedSystemRoles();
  const db = prisma();
  const adminRole = await db.role.findFirstOrThrow({ where: { workspaceId: null, name: "Admin", roleType: "system" } });
  assertStrongPassword(input.password, "password", [input.email, input.name]);
  const passwordHash = await hashPassword(input.password);
  return db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${SETUP_LOCK})`;
    if ((await tx.user.count()) > 0) throw new Conflict("Setup is already complete; sign in instead.");
    const user = await tx.user.create({ data: { email: input.email, name: input.name, passwordHash } });
    let workspaces = await tx.workspace.findMany({ select: { id: true } });
    if (workspaces.length === 0) {
      const name = input.workspace_name || "Default workspace";
      workspaces = [await tx.workspace.create({ data: { name, slug: slugify(name) }, select: { id: true } })];
    }
    await tx.workspaceUser.createMany({
      data: workspaces.map((w) => ({ userId: user.id, workspaceId: w.id, roleId: adminRole.id, joinedAt: new Date() })),
    });
    return user;
  });
}

// Members of a workspace named in the path. Adding an email that has no account (or only an
// unverified sign-up) creates the user with the name and initial password given; an existing
// account just gains a membership. Both
// cases answer alike (same required fields, same response, same audit entry), so an invitation
// never tells the inviter whether, or as whom, an email is registered (lib/serializers/members.ts
// hides the profile until the person uses the workspace). Nobody hands out or takes away rights
// beyond their own: the role given must be within the caller's, and a member whose role exceeds
// the caller's can be neither changed nor removed by it. A workspace always keeps at least one
// Admin: removing or demoting the last one is a 409. Member changes lock the workspace row, so two
// concurrent demotions cannot both pass the last-Admin check.
import "server-only";
import { hashPassword } from "@/lib/auth/password";
import { assertStrongPassword } from "@/lib/auth/password-policy";
import { within, type Policies } from "@/lib/auth/permissions";
import { prisma } from "@/lib/db/client";
import { Conflict, Forbidden, NotFound } from "@/lib/errors";
import type { Prisma } from "@/lib/generated/prisma/client";
import type { Page } from "@/lib/page";
import type { CreateMemberInput, UpdateMemberInput } from "@/lib/validation/members";
import { rolePolicies } from "@/lib/validation/roles";
import { audit } from "./audit";
import type { AuthContext } from "./auth-context";
import { assertWithin, assignableRole } from "./roles";
import { workspaceAccess } from "./workspaces";

type Tx = Prisma.TransactionClient;

const include = {
  user: { select: { id: true, email: true, name: true, lastLoginAt: true } },
  role: true,
} as const;

export async function listMembers(auth: AuthContext, workspaceId: number, page: Page) {
  await workspaceAccess(auth, workspaceId, "user", "read");
  const where = { workspaceId };
  const [rows, total] = await Promise.all([
    prisma().workspaceUser.findMany({
      where,
      include,
      orderBy: { id: "asc" },
      skip: page.skip,
      take: page.take,
    }),
    prisma().workspaceUser.count({ where }),
  ]);
  return { rows, total };
}
export type MemberRow = Awaited<ReturnType<typeof listMembers>>["rows"][number];

export async function getMember(auth: AuthContext, workspaceId: number, userId: number): Promise<MemberRow> {
  await workspaceAccess(auth, workspaceId, "user", "read");
  return findMember(prisma(), workspaceId, userId);
}

async function findMember(tx: Tx, workspaceId: number, userId: number): Promise<MemberRow> {
  const member = await tx.workspaceUser.findUnique({
    where: { workspaceId_userId: { workspaceId, userId } },
    include,
  });
  if (!member) throw new NotFound(`User ${userId} is not a member of this workspace.`);
  return member;
}

const lockWorkspace = (tx: Tx, workspaceId: number) =>
  tx.$queryRaw`SELECT id FROM workspaces WHERE id = ${workspaceId} FOR UPDATE`;

export async function addMember(
  auth: AuthContext,
  workspaceId: number,
  input: CreateMemberInput,
): Promise<MemberRow> {
  const access = await workspaceAccess(auth, workspaceId, "user", "create");
  // The same rule for every email, registered or not, so the answer tells nothing about it.
  assertStrongPassword(input.password, "member.password", [input.email, input.name]);
  // Hashed whether or not it is used, outside the transaction (scrypt is slow on purpose and must
  // not hold the lock): the answer takes as long for a registered email as for a new one.
  const passwordHash = await hashPassword(input.password);
  return prisma().$transaction(async (tx) => {
    await lockWorkspace(tx, workspaceId);
    const role = await assignableRole(workspaceId, input.role_id, "member.role_id", tx);
    assertWithin(access.policies, rolePolicies(role), `The role ${role.name}`);
    const user =
      (await claimUnverified(tx, input, passwordHash)) ??
      (await tx.user.findUnique({ where: { email: input.email }, select: { id: true } })) ??
      (await tx.user.create({
        data: { email: input.email, name: input.name, passwordHash },
        select: { id: true },
      }));
    const already = await tx.workspaceUser.findUnique({
      where: { workspaceId_userId: { workspaceId, userId: user.id } },
    });
    if (already) throw new Conflict(`${input.email} is already a member of this workspace.`);
    const member = await tx.workspaceUser.create({
      data: { workspaceId, userId: user.id, roleId: role.id },
      include,
    });
    await audit(access.auth, "create", "member", user.id, { email: input.email, role_name: role.name }, tx);
    return member;
  });
}

/**
 * An unverified self sign-up (lib/services/accounts.ts) proves nothing about who chose its password:
 * anyone can sign up someone else's address. An invitation vouches for the address instead, so it
 * treats such an account as new: the invitation's password and name replace the sign-up's, the
 * address counts as verified, and the pending links die. Otherwise whoever signed up the address
 * first would be let into the inviting workspace as soon as its owner clicked a verification link
 * (pre-account hijacking). Null when the address has no unverified account.
 */
async function claimUnverified(tx: Tx, input: CreateMemberInput, passwordHash: string) {
  const now = new Date();
  const { count } = await tx.user.updateMany({
    where: { email: input.email, confirmedAt: null },
    data: { passwordHash, name: input.name, confirmedAt: now, passwordChangedAt: now },
  });
  if (count === 0) return null;
  const user = await tx.user.findUniqueOrThrow({ where: { email: input.email }, select: { id: true } });
  await tx.accountToken.deleteMany({ where: { userId: user.id } });
  return user;
}

/** A member holding rights the caller lacks is out of its reach (a user manager cannot demote an Admin). */
function assertManageable(callerPolicies: Policies, member: MemberRow, verb: string): void {
  if (!within(callerPolicies, rolePolicies(member.role))) {
    throw new Forbidden(
      `You may not ${verb} ${member.user.email}: their role (${member.role.name}) has permissions yours does not.`,
    );
  }
}

async function adminRoleId(tx: Tx): Promise<number> {
  const admin = await tx.role.findFirstOrThrow({
    where: { workspaceId: null, roleType: "system", name: "Admin" },
    select: { id: true },
  });
  return admin.id;
}

async function assertNotLastAdmin(
  tx: Tx,
  workspaceId: number,
  member: MemberRow,
  verb: string,
): Promise<void> {
  const adminId = await adminRoleId(tx);
  if (member.roleId !== adminId) return;
  const admins = await tx.workspaceUser.count({ where: { workspaceId, roleId: adminId } });
  if (admins <= 1) {
    throw new Conflict(
      `${member.user.email} is the last Admin of this workspace and cannot be ${verb}; make someone else Admin first.`,
    );
  }
}

export async function updateMember(
  auth: AuthContext,
  workspaceId: number,
  userId: number,
  input: UpdateMemberInput,
): Promise<MemberRow> {
  const access = await workspaceAccess(auth, workspaceId, "user", "update");
  return prisma().$transaction(async (tx) => {
    await lockWorkspace(tx, workspaceId);
    const member = await findMember(tx, workspaceId, userId);
    assertManageable(access.policies, member, "change the role of");
    const role = await assignableRole(workspaceId, input.role_id, "member.role_id", tx);
    assertWithin(access.policies, rolePolicies(role), `The role ${role.name}`);
    if (role.id === member.roleId) return member;
    await assertNotLastAdmin(tx, workspaceId, member, "given another role");
    const updated = await tx.workspaceUser.update({
      where: { id: member.id },
      data: { roleId: role.id },
      include,
    });
    await audit(
      access.auth,
      "update",
      "member",
      userId,
      { role_name: { from: member.role.name, to: role.name } },
      tx,
    );
    return updated;
  });
}

/** Removes a member and revokes its API tokens for this workspace (they would no longer work anyway). */
export async function removeMember(auth: AuthContext, workspaceId: number, userId: number): Promise<void> {
  const access = await workspaceAccess(auth, workspaceId, "user", "delete");
  await prisma().$transaction(async (tx) => {
    await lockWorkspace(tx, workspaceId);
    const member = await findMember(tx, workspaceId, userId);
    assertManageable(access.policies, member, "remove");
    await assertNotLastAdmin(tx, workspaceId, member, "removed");
    await tx.apiToken.updateMany({
      where: { workspaceId, userId, revokedAt: null },
      data: { revokedAt: new Date() },
    });
    await tx.workspaceUser.delete({ where: { id: member.id } });
    await audit(
      access.auth,
      "delete",
      "member",
      userId,
      { email: member.user.email, role_name: member.role.name },
      tx,
    );
  });
}

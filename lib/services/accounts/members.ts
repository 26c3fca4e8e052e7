// Members of a workspace named in the path. Adding an email is an invitation (invitations.ts): a
// pending membership that gives no access until the person accepts it through the link mailed to
// the address; an email without an account gets an account without a password, chosen by its owner
// on acceptance. Nobody but the address's owner ever sets its password, so the inviter cannot sign
// in as the invitee. Both cases answer alike (same required fields, same response, same audit entry),
// so an invitation never tells the inviter whether, or as whom, an email is registered
// (lib/serializers/members.ts shows the email and role until acceptance). Nobody hands out or takes
// away rights beyond their own: the role given must be within the caller's, and a member whose role
// exceeds the caller's can be neither changed nor removed by it. A workspace always keeps at least one
// Admin: removing or demoting the last one is a 409. Member changes lock the workspace row, so two
// concurrent demotions cannot both pass the last-Admin check.
import "server-only";
import { within, type Policies } from "@/lib/auth/permissions";
import { prisma } from "@/lib/db/client";
import { Conflict, Forbidden, NotFound } from "@/lib/errors";
import type { Prisma } from "@/lib/generated/prisma/client";
import type { Page } from "@/lib/page";
import type { CreateMemberInput, UpdateMemberInput } from "@/lib/validation/members";
import { rolePolicies } from "@/lib/validation/roles";
import { throttleMailTo } from "./account-throttle";
import { audit } from "../insights/audit";
import type { AuthContext } from "./auth-context";
import { invitee, sendInvitation } from "./invitations";
import { reserveInvitation } from "./mail-caps";
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

/** Invites `input.email` (see the header); the pending membership, shown as such until accepted. */
export async function addMember(
  auth: AuthContext,
  workspaceId: number,
  input: CreateMemberInput,
  client: { consoleBase: string },
): Promise<MemberRow> {
  const access = await workspaceAccess(auth, workspaceId, "user", "create");
  // Every invitation mails an address of the inviter's choosing: capped per workspace and per
  // inviter (mail-caps.ts), and the same per-address budget as the account mails. An invitation that
  // is refused below sends nothing, so it gives its place under the caps back.
  const reservation = await reserveInvitation(workspaceId, access.auth.user.id);
  try {
    await throttleMailTo(input.email);
  } catch (err) {
    await reservation.giveBack();
    throw err;
  }
  const { member, send } = await prisma().$transaction(async (tx) => {
    await lockWorkspace(tx, workspaceId);
    const role = await assignableRole(workspaceId, input.role_id, "member.role_id", tx);
    assertWithin(access.policies, rolePolicies(role), `The role ${role.name}`);
    const user = await invitee(tx, input.email, input.name);
    const already = await tx.workspaceUser.findUnique({
      where: { workspaceId_userId: { workspaceId, userId: user.id } },
    });
    if (already) {
      throw new Conflict(
        already.joinedAt
          ? `${input.email} is already a member of this workspace.`
          : `${input.email} is already invited to this workspace; to send a new link, remove the invitation and invite again.`,
      );
    }
    const member = await tx.workspaceUser.create({
      data: { workspaceId, userId: user.id, roleId: role.id, joinedAt: null },
      include: { ...include, workspace: { select: { name: true } } },
    });
    const send = await sendInvitation(
      tx,
      {
        userId: user.id,
        membershipId: member.id,
        email: input.email,
        setPassword: user.setPassword,
        workspace: member.workspace.name,
        inviter: { name: access.auth.user.name, email: access.auth.user.email },
      },
      client.consoleBase,
    );
    await audit(access.auth, "create", "member", user.id, { email: input.email, role_name: role.name }, tx);
    return { member, send };
  }).catch(async (err: unknown) => {
    await reservation.giveBack();
    throw err;
  });
  send();
  return member;
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
  // A pending invitation is no Admin yet: it may go, and it does not keep the workspace managed.
  if (member.roleId !== adminId || member.joinedAt === null) return;
  const admins = await tx.workspaceUser.count({ where: { workspaceId, roleId: adminId, joinedAt: { not: null } } });
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

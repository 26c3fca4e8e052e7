// Roles: the three system roles (no workspace, never changed through the API) and custom roles of
// one workspace. Changing a system role is a 403: it is a rule, not a state the caller can fix.
// A role still held by a member or an API token cannot be deleted (409).
// Nobody grants rights they do not hold: a caller reaches only roles within its effective rights
// (an API token's narrowed ones included). It may create such a role, change one into another such
// role, and delete one; a role with more (the Admin's custom ones) is out of its reach, as members
// with more are (members.ts). Nobody changes or deletes the role they act with (their membership's
// or their token's), or a holder of role.* could widen itself step by step and make itself Admin.
import "server-only";
import { exceeding, type Policies } from "@/lib/auth/permissions";
import { prisma } from "@/lib/db/client";
import { Conflict, Forbidden, NotFound, ValidationFailed } from "@/lib/errors";
import type { Prisma, Role } from "@/lib/generated/prisma/client";
import { normalizePolicies, rolePolicies, type CreateRoleInput, type UpdateRoleInput } from "@/lib/validation/roles";
import { audit } from "../insights/audit";
import type { AuthContext } from "./auth-context";

type Tx = Prisma.TransactionClient;

/** System roles plus the custom roles of the workspace. */
export async function listRoles(workspaceId: number) {
  const roles = await prisma().role.findMany({
    where: { OR: [{ workspaceId: null }, { workspaceId }] },
    orderBy: { id: "asc" },
  });
  if (roles.length === 0) throw new NotFound("No roles were found for this workspace.");
  return roles;
}

/** Who holds each role in the workspace: members, and API tokens still valid (what deleteRole refuses on). */
export async function roleUsage(workspaceId: number): Promise<Map<number, { members: number; apiTokens: number }>> {
  const [members, tokens] = await Promise.all([
    prisma().workspaceUser.groupBy({ by: ["roleId"], where: { workspaceId }, _count: { _all: true } }),
    prisma().apiToken.groupBy({
      by: ["roleId"],
      where: { workspaceId, roleId: { not: null }, revokedAt: null, OR: [{ expiresAt: null }, { expiresAt: { gt: new Date() } }] },
      _count: { _all: true },
    }),
  ]);
  const usage = new Map<number, { members: number; apiTokens: number }>();
  const entry = (id: number) => usage.get(id) ?? usage.set(id, { members: 0, apiTokens: 0 }).get(id)!;
  for (const m of members) entry(m.roleId).members = m._count._all;
  for (const t of tokens) if (t.roleId !== null) entry(t.roleId).apiTokens = t._count._all;
  return usage;
}

/** A role visible from the workspace (system, or custom of this workspace); others are 404. */
export async function getRole(workspaceId: number, id: number, tx: Tx = prisma()): Promise<Role> {
  const role = await tx.role.findFirst({ where: { id, OR: [{ workspaceId: null }, { workspaceId }] } });
  if (!role) throw new NotFound(`Role ${id} was not found.`);
  return role;
}

/** getRole, locking the row: a concurrent change cannot slip between the check and the write. */
async function lockRole(tx: Tx, workspaceId: number, id: number): Promise<Role> {
  await tx.$queryRaw`SELECT id FROM roles WHERE id = ${id} FOR UPDATE`;
  return getRole(workspaceId, id, tx);
}

/**
 * The role a member or token is given, looked up for a body field (`path`): unknown or foreign is a
 * 422 on that field, so a form can show it next to the input.
 */
export async function assignableRole(
  workspaceId: number,
  id: number,
  path: string,
  tx: Tx = prisma(),
): Promise<Role> {
  const role = await tx.role.findFirst({ where: { id, OR: [{ workspaceId: null }, { workspaceId }] } });
  if (!role) {
    throw ValidationFailed.field(path, `role ${id} does not exist in this workspace`);
  }
  return role;
}

/** Every permission `granted` holds must be held by `holder`, or a caller could hand out more than it has. */
export function assertWithin(holder: Policies, granted: Policies, what: string): void {
  const excess = exceeding(holder, granted);
  if (excess.length > 0) {
    throw new Forbidden(
      `${what} would grant permissions your own role does not have: ${excess.slice(0, 5).join(", ")}${excess.length > 5 ? ", …" : ""}. Nobody may grant rights they do not hold.`,
    );
  }
}

async function assertNameFree(tx: Tx, workspaceId: number, name: string, exceptId?: number): Promise<void> {
  const clash = await tx.role.findFirst({
    where: {
      name: { equals: name, mode: "insensitive" },
      OR: [{ workspaceId: null }, { workspaceId }],
      ...(exceptId ? { NOT: { id: exceptId } } : {}),
    },
    select: { id: true },
  });
  if (clash)
    throw new Conflict(`A role named "${name}" already exists in this workspace; choose another name.`);
}

function assertCustom(role: Role, verb: string): void {
  if (role.roleType === "system") {
    throw new Forbidden(`${role.name} is a system role and cannot be ${verb}; create a custom role instead.`);
  }
}

/** The role the request acts with (membership or API token) is out of its own reach. */
function assertNotHeld(auth: AuthContext, role: Role, verb: string): void {
  const through =
    role.id === auth.roleId ? "your membership" : role.id === auth.apiToken?.roleId ? "this API token" : null;
  if (through) {
    throw new Forbidden(
      `You hold the role ${role.name} through ${through} and cannot ${verb} it yourself; ask another member who may manage roles.`,
    );
  }
}

/** A role holding permissions the caller lacks is out of its reach: it may not be changed or deleted by it. */
function assertReachable(auth: AuthContext, role: Role, verb: string): void {
  const excess = exceeding(auth.policies, rolePolicies(role));
  if (excess.length > 0) {
    throw new Forbidden(
      `You may not ${verb} the role ${role.name}: it has permissions yours does not (${excess.slice(0, 5).join(", ")}${excess.length > 5 ? ", …" : ""}).`,
    );
  }
}

export async function createRole(auth: AuthContext, input: CreateRoleInput): Promise<Role> {
  const policies = normalizePolicies(input.policies);
  assertWithin(auth.policies, policies, `The role ${input.role_name}`);
  return prisma().$transaction(async (tx) => {
    await assertNameFree(tx, auth.workspaceId, input.role_name);
    const role = await tx.role.create({
      data: {
        workspaceId: auth.workspaceId,
        name: input.role_name,
        description: input.role_desc ?? "",
        roleType: "custom",
        policies,
      },
    });
    await audit(auth, "create", "role", role.id, { role_name: role.name }, tx);
    return role;
  });
}

export async function updateRole(auth: AuthContext, id: number, input: UpdateRoleInput): Promise<Role> {
  return prisma().$transaction(async (tx) => {
    const role = await lockRole(tx, auth.workspaceId, id);
    assertCustom(role, "changed");
    assertNotHeld(auth, role, "change");
    assertReachable(auth, role, "change");
    const policies = input.policies ? normalizePolicies(input.policies) : undefined;
    if (policies) assertWithin(auth.policies, policies, `This change of ${role.name}`);
    if (input.role_name !== undefined) await assertNameFree(tx, auth.workspaceId, input.role_name, id);
    const updated = await tx.role.update({
      where: { id },
      data: {
        ...(input.role_name !== undefined ? { name: input.role_name } : {}),
        ...(input.role_desc !== undefined ? { description: input.role_desc } : {}),
        ...(policies ? { policies } : {}),
      },
    });
    await audit(auth, "update", "role", id, { changed: Object.keys(input) }, tx);
    return updated;
  });
}

export async function deleteRole(auth: AuthContext, id: number): Promise<void> {
  await prisma().$transaction(async (tx) => {
    const role = await getRole(auth.workspaceId, id, tx);
    assertCustom(role, "deleted");
    assertNotHeld(auth, role, "delete");
    assertReachable(auth, role, "delete");
    const [members, tokens] = await Promise.all([
      tx.workspaceUser.count({ where: { roleId: id } }),
      tx.apiToken.count({
        where: { roleId: id, revokedAt: null, OR: [{ expiresAt: null }, { expiresAt: { gt: new Date() } }] },
      }),
    ]);
    if (members + tokens > 0) {
      throw new Conflict(
        `Role ${role.name} is in use by ${members} member(s) and ${tokens} API token(s); give them another role first.`,
      );
    }
    // Revoked and expired tokens keep their row for the record; detach them so the role can go.
    await tx.apiToken.updateMany({ where: { roleId: id }, data: { roleId: null } });
    await tx.role.delete({ where: { id } });
    await audit(auth, "delete", "role", id, { role_name: role.name }, tx);
  });
}

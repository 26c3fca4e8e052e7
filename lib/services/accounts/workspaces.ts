// Workspaces and access to a workspace named in the path. Path endpoints check the caller's
// membership and permission in THAT workspace (not the Workspace-Id header's); a workspace the
// caller is not a member of is the same 404 as one that does not exist. An API token only ever
// reaches its own workspace, with its narrowed role. Known gap: the route wrapper parses the body
// before the service can check the path workspace, so an unauthorised caller sending an invalid
// body sees its 422 rather than the 403 (a valid body gets the 403).
import "server-only";
import { randomBytes } from "node:crypto";
import { can, type Action, type Policies, type Resource } from "@/lib/auth/permissions";
import { refusal } from "@/lib/auth/refusal";
import { prisma } from "@/lib/db/client";
import { Conflict, Forbidden, NotFound } from "@/lib/errors";
import type { Prisma } from "@/lib/generated/prisma/client";
import type { Page } from "@/lib/page";
import type { CreateWorkspaceInput, UpdateWorkspaceInput } from "@/lib/validation/workspaces";
import { rolePolicies } from "@/lib/validation/roles";
import { audit } from "../insights/audit";
import type { AuthContext } from "./auth-context";
import { reserveWorkspaceCreation } from "./mail-caps";

type Tx = Prisma.TransactionClient;

/** The caller as seen from one workspace: the auth context to audit with, and its role there. */
export interface WorkspaceAccess {
  auth: AuthContext;
  workspaceId: number;
  roleName: string;
  policies: Policies;
}

const notFound = (id: number) => new NotFound(`Workspace ${id} was not found.`);

/** Resolves the caller's role in `workspaceId` and checks one permission there (404 before 403). */
export async function workspaceAccess(
  auth: AuthContext,
  workspaceId: number,
  resource: Resource,
  action: Action,
  tx: Tx = prisma(),
): Promise<WorkspaceAccess> {
  let access: WorkspaceAccess;
  if (workspaceId === auth.workspaceId) {
    access = { auth, workspaceId, roleName: auth.roleName, policies: auth.policies };
  } else {
    if (auth.tokenKind === "api_token") throw notFound(workspaceId);
    const membership = await tx.workspaceUser.findUnique({
      where: { workspaceId_userId: { workspaceId, userId: auth.user.id } },
      include: { role: true },
    });
    // A pending invitation gives no access (lib/services/accounts/invitations.ts).
    if (!membership?.joinedAt) throw notFound(workspaceId);
    const policies = rolePolicies(membership.role);
    access = {
      auth: { ...auth, workspaceId, roleId: membership.roleId, roleName: membership.role.name, policies },
      workspaceId,
      roleName: membership.role.name,
      policies,
    };
  }
  if (!can(access.policies, resource, action)) {
    throw new Forbidden(refusal(access.auth, resource, action));
  }
  return access;
}

const withCallerRole = (userId: number) =>
  ({
    members: { where: { userId }, include: { role: { select: { id: true, name: true } } } },
    _count: { select: { members: true } },
  }) as const;

/** Workspaces the caller belongs to (an API token: only its own), oldest first. */
export async function listWorkspaces(auth: AuthContext, page: Page) {
  const where: Prisma.WorkspaceWhereInput = {
    members: { some: { userId: auth.user.id, joinedAt: { not: null } } },
    ...(auth.tokenKind === "api_token" ? { id: auth.workspaceId } : {}),
  };
  const [rows, total] = await Promise.all([
    prisma().workspace.findMany({
      where,
      include: withCallerRole(auth.user.id),
      orderBy: { id: "asc" },
      skip: page.skip,
      take: page.take,
    }),
    prisma().workspace.count({ where }),
  ]);
  return { rows, total };
}
export type WorkspaceRow = Awaited<ReturnType<typeof listWorkspaces>>["rows"][number];

export async function getWorkspace(auth: AuthContext, id: number): Promise<WorkspaceRow> {
  await workspaceAccess(auth, id, "workspace", "read");
  return prisma().workspace.findUniqueOrThrow({ where: { id }, include: withCallerRole(auth.user.id) });
}

export function slugFor(name: string): string {
  const base = name
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")
    .slice(0, 40);
  return `${base || "workspace"}-${randomBytes(3).toString("hex")}`;
}

/** Creates a workspace; the creator becomes its Admin. */
export async function createWorkspace(auth: AuthContext, input: CreateWorkspaceInput): Promise<WorkspaceRow> {
  // Each workspace has its own mail caps (invitations, alert confirmations): capping how many one
  // user creates a day keeps them from multiplying those caps at will (mail-caps.ts).
  const reservation = await reserveWorkspaceCreation(auth.user.id);
  return prisma().$transaction(async (tx) => {
    const admin = await tx.role.findFirstOrThrow({
      where: { workspaceId: null, roleType: "system", name: "Admin" },
    });
    const workspace = await tx.workspace.create({
      data: {
        name: input.name,
        slug: slugFor(input.name),
        description: input.description || null,
        region: input.region || null,
      },
    });
    await tx.workspaceUser.create({
      data: { workspaceId: workspace.id, userId: auth.user.id, roleId: admin.id, joinedAt: new Date() },
    });
    await audit(
      { ...auth, workspaceId: workspace.id },
      "create",
      "workspace",
      workspace.id,
      { name: workspace.name },
      tx,
    );
    return tx.workspace.findUniqueOrThrow({
      where: { id: workspace.id },
      include: withCallerRole(auth.user.id),
    });
  }).catch(async (err: unknown) => {
    await reservation.giveBack();
    throw err;
  });
}

export async function updateWorkspace(
  auth: AuthContext,
  id: number,
  input: UpdateWorkspaceInput,
): Promise<WorkspaceRow> {
  return prisma().$transaction(async (tx) => {
    const access = await workspaceAccess(auth, id, "workspace", "update", tx);
    const before = await tx.workspace.findUniqueOrThrow({ where: { id } });
    // Only what the body sends changes; an empty string or null clears the optional fields.
    const updated = await tx.workspace.update({
      where: { id },
      data: {
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.description !== undefined ? { description: input.description || null } : {}),
        ...(input.region !== undefined ? { region: input.region || null } : {}),
      },
      include: withCallerRole(auth.user.id),
    });
    const changes = Object.fromEntries(
      (["name", "description", "region"] as const)
        .filter((field) => before[field] !== updated[field])
        .map((field) => [field, { from: before[field], to: updated[field] }]),
    );
    await audit(access.auth, "update", "workspace", id, changes, tx);
    return updated;
  });
}

/**
 * Deletes a workspace and everything in it. Refused (409) when it is the caller's last workspace.
 * Children go in dependency order: syncs, models and members reference connectors and roles with
 * ON DELETE RESTRICT, which a single cascade from the workspace row would trip over. The audit
 * entry goes to the workspace the caller works from (the deleted one's log goes with it).
 */
export async function deleteWorkspace(auth: AuthContext, id: number): Promise<void> {
  await prisma().$transaction(async (tx) => {
    await workspaceAccess(auth, id, "workspace", "delete", tx);
    await tx.$queryRaw`SELECT id FROM workspaces WHERE id = ${id} FOR UPDATE`;
    const workspace = await tx.workspace.findUniqueOrThrow({ where: { id } });
    const others = await tx.workspaceUser.findFirst({
      where: { userId: auth.user.id, workspaceId: { not: id }, joinedAt: { not: null } },
      orderBy: { workspaceId: "asc" },
      select: { workspaceId: true },
    });
    if (!others) {
      throw new Conflict(
        `Workspace ${workspace.name} is your last workspace and cannot be deleted; create another one first.`,
      );
    }
    const where = { workspaceId: id };
    await tx.sync.deleteMany({ where });
    await tx.model.deleteMany({ where });
    await tx.connector.deleteMany({ where });
    await tx.apiToken.deleteMany({ where });
    await tx.workspaceUser.deleteMany({ where });
    await tx.role.deleteMany({ where });
    await tx.workspace.delete({ where: { id } });
    const logTo = auth.workspaceId !== id ? auth.workspaceId : others.workspaceId;
    await audit({ ...auth, workspaceId: logTo }, "delete", "workspace", id, { name: workspace.name }, tx);
  });
}

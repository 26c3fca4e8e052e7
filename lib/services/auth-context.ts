// Turns a bearer token and the Workspace-Id header into the caller's identity, workspace and
// effective permissions. Revoked or expired tokens, and unknown users, are all 401.
import { verifyToken, type TokenKind } from "@/lib/auth/jwt";
import { intersect, type Policies } from "@/lib/auth/permissions";
import { prisma } from "@/lib/db/client";
import { NotFound, Unauthorized, BadRequest } from "@/lib/errors";

export interface AuthContext {
  user: { id: number; email: string; name: string };
  workspaceId: number;
  roleId: number;
  roleName: string;
  policies: Policies;
  tokenKind: TokenKind;
  jti: string;
  /** Token expiry (seconds since epoch), when it has one. */
  exp?: number;
}

const INVALID = "The access token is missing, invalid, expired or revoked. Sign in again (POST /api/v1/login).";

export function parseWorkspaceHeader(value: string | null): number | undefined {
  if (value === null || value.trim() === "") return undefined;
  if (!/^\d{1,9}$/.test(value.trim())) throw new BadRequest("The Workspace-Id header must be a positive integer.");
  return Number(value.trim());
}

export async function authenticate(token: string | null, workspaceHeader: string | null): Promise<AuthContext> {
  if (!token) throw new Unauthorized("Authentication required: send `Authorization: Bearer <token>`.");
  const claims = await verifyToken(token);
  if (!claims) throw new Unauthorized(INVALID);
  const requested = parseWorkspaceHeader(workspaceHeader);
  const db = prisma();
  const userId = Number(claims.sub);

  let workspaceId = requested;
  let tokenRole: Policies | undefined;
  if (claims.kind === "api_token") {
    const apiToken = await db.apiToken.findUnique({ where: { jti: claims.jti }, include: { role: true } });
    if (!apiToken || apiToken.revokedAt || apiToken.userId !== userId) throw new Unauthorized(INVALID);
    if (apiToken.expiresAt && apiToken.expiresAt.getTime() <= Date.now()) throw new Unauthorized(INVALID);
    if (requested !== undefined && requested !== apiToken.workspaceId) {
      throw new NotFound(`Workspace ${requested} was not found.`);
    }
    workspaceId = apiToken.workspaceId;
    tokenRole = apiToken.role?.policies as Policies | undefined;
    // Last-used is informative; a lost update under concurrency is harmless.
    void db.apiToken.update({ where: { id: apiToken.id }, data: { lastUsedAt: new Date() } }).catch(() => undefined);
  } else {
    const revoked = await db.revokedToken.findUnique({ where: { jti: claims.jti } });
    if (revoked) throw new Unauthorized(INVALID);
  }

  const membership = await db.workspaceUser.findFirst({
    where: { userId, ...(workspaceId !== undefined ? { workspaceId } : {}) },
    include: { user: true, role: true },
    orderBy: { id: "asc" },
  });
  if (!membership) {
    if (workspaceId !== undefined) {
      const userExists = await db.user.findUnique({ where: { id: userId }, select: { id: true } });
      if (!userExists) throw new Unauthorized(INVALID);
      throw new NotFound(`Workspace ${workspaceId} was not found.`);
    }
    throw new Unauthorized("This account is not a member of any workspace.");
  }
  const rolePolicies = membership.role.policies as unknown as Policies;
  return {
    user: { id: membership.user.id, email: membership.user.email, name: membership.user.name },
    workspaceId: membership.workspaceId,
    roleId: membership.roleId,
    roleName: membership.role.name,
    policies: tokenRole ? intersect(rolePolicies, tokenRole) : rolePolicies,
    tokenKind: claims.kind,
    jti: claims.jti,
    exp: claims.exp,
  };
}

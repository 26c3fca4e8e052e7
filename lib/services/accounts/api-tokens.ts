// API tokens: long-lived JWTs bound to one user and one workspace, optionally with an expiry and a
// narrower role. Only the jti is stored; the token itself is returned once, at creation. Revoking
// sets revoked_at, which auth-context checks on every request, so it takes effect at once.
// A token that creates tokens hands on at most what it has: the new token's role defaults to the
// caller token's own (not the member's full role), an explicit one must be within the caller's
// effective rights, and the new token expires no later than the caller token (absent expires_at:
// the same expiry; a later one is refused with 403, never silently shortened).
// Listing and revoking: your own tokens; a workspace manager (user.read / user.delete) sees and
// revokes every token of the workspace, e.g. one a departed colleague leaked. Revoking a token
// revokes the tokens it minted too (parent_id), and theirs: whoever held it cannot have kept access
// through a token they made with it. Recovering an account revokes all of its tokens
// (account-recovery.ts).
import "server-only";
import { signToken } from "@/lib/auth/jwt";
import { can } from "@/lib/auth/permissions";
import { prisma } from "@/lib/db/client";
import { Forbidden, NotFound, ValidationFailed } from "@/lib/errors";
import type { Page } from "@/lib/page";
import type { CreateApiTokenInput } from "@/lib/validation/api-tokens";
import { rolePolicies } from "@/lib/validation/roles";
import { audit } from "../insights/audit";
import type { AuthContext } from "./auth-context";
import { assertWithin, assignableRole } from "./roles";

const withRelations = { role: true, user: { select: { id: true, email: true, name: true } } } as const;

/** The expiry of a new token: as asked, but never beyond the expiry of the API token creating it. */
function expiryFor(auth: AuthContext, requested: string | null | undefined): Date | null {
  const expiresAt = requested ? new Date(requested) : null;
  if (expiresAt && expiresAt.getTime() <= Date.now()) {
    throw ValidationFailed.field("api_token.expires_at", "must be in the future");
  }
  const limit = auth.apiToken?.expiresAt;
  if (!limit) return expiresAt;
  if (!expiresAt) return limit;
  if (expiresAt.getTime() > limit.getTime()) {
    throw new Forbidden(
      `An API token may only create tokens that expire no later than itself (${limit.toISOString()}); send an earlier expires_at, or omit it to get the same expiry.`,
    );
  }
  return expiresAt;
}

export async function createApiToken(auth: AuthContext, input: CreateApiTokenInput) {
  const expiresAt = expiryFor(auth, input.expires_at);
  // Absent role_id: the caller's own rights, i.e. the caller token's role when a token calls.
  const roleId = input.role_id ?? auth.apiToken?.roleId ?? null;
  return prisma().$transaction(async (tx) => {
    if (input.role_id) {
      const role = await assignableRole(auth.workspaceId, input.role_id, "api_token.role_id", tx);
      assertWithin(auth.policies, rolePolicies(role), `The role ${role.name}`);
    }
    const { token, jti } = await signToken({
      userId: auth.user.id,
      kind: "api_token",
      workspaceId: auth.workspaceId,
      expiresAt,
    });
    const row = await tx.apiToken.create({
      data: {
        workspaceId: auth.workspaceId,
        userId: auth.user.id,
        roleId,
        name: input.name,
        jti,
        expiresAt,
        parentId: auth.apiToken?.id ?? null,
      },
      include: withRelations,
    });
    await audit(auth, "create", "api_token", row.id, { name: row.name, role_id: row.roleId }, tx);
    return { ...row, token };
  });
}

/** Tokens not revoked, newest first: the caller's own, or all of the workspace for managers. */
export async function listApiTokens(auth: AuthContext, page: Page) {
  const where = {
    workspaceId: auth.workspaceId,
    revokedAt: null,
    ...(can(auth.policies, "user", "read") ? {} : { userId: auth.user.id }),
  };
  const [rows, total] = await Promise.all([
    prisma().apiToken.findMany({
      where,
      include: withRelations,
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      skip: page.skip,
      take: page.take,
    }),
    prisma().apiToken.count({ where }),
  ]);
  return { rows, total };
}

export async function revokeApiToken(auth: AuthContext, id: number): Promise<void> {
  await prisma().$transaction(async (tx) => {
    const token = await tx.apiToken.findFirst({
      where: {
        id,
        workspaceId: auth.workspaceId,
        revokedAt: null,
        ...(can(auth.policies, "user", "delete") ? {} : { userId: auth.user.id }),
      },
    });
    if (!token) throw new NotFound(`API token ${id} was not found.`);
    // The token and every token minted from it, down the generations.
    await tx.$executeRaw`
      WITH RECURSIVE minted AS (
        SELECT id FROM api_tokens WHERE id = ${id}
        UNION
        SELECT t.id FROM api_tokens t JOIN minted m ON t.parent_id = m.id
      )
      UPDATE api_tokens SET revoked_at = now(), updated_at = now()
       WHERE id IN (SELECT id FROM minted) AND revoked_at IS NULL`;
    await audit(auth, "delete", "api_token", id, { name: token.name, user_id: token.userId }, tx);
  });
}
export type ApiTokenRow = Awaited<ReturnType<typeof listApiTokens>>["rows"][number];

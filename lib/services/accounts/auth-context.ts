// Turns a bearer token and the Workspace-Id header into the caller's identity, workspace and
// effective permissions. Revoked or expired tokens, and unknown users, are all 401.
// One SQL statement, read fresh on every call, whichever process made a change: a logout, a revoked
// API token, a role change or a removed membership applies to the next call. Only accepted
// memberships count: a pending invitation (workspace_users.joined_at null, lib/services/accounts/invitations.ts)
// gives no access at all. The statement also returns the database snapshot it read, which dates
// answers remembered for that snapshot (lib/http/remembered.ts).
import "server-only";
import { verifyToken, type TokenClaims, type TokenKind } from "@/lib/auth/jwt";
import { intersect, type Policies } from "@/lib/auth/permissions";
import { prisma, queryRows } from "@/lib/db/client";
import { NotFound, Unauthorized, BadRequest } from "@/lib/errors";
import { Prisma } from "@/lib/generated/prisma/client";

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
  /**
   * The database snapshot this authentication was read in (pg_current_snapshot() as text; "" when
   * none was read). Two equal snapshots mean no transaction committed in between, so an answer read
   * under this one is still exact (lib/http/remembered.ts).
   */
  snapshot: string;
  /**
   * Set when the caller is an API token: its own narrowing role (null = the member's role) and
   * expiry. What the token may hand on (new tokens, roles) is bounded by these.
   */
  apiToken?: { id: number; roleId: number | null; expiresAt: Date | null; role: { name: string; policies: Policies } | null };
}

const INVALID =
  "The access token is missing, invalid, expired or revoked. Sign in again (POST /api/v1/login).";

/** last_used_at is informative: written at most once a minute per token, not on every request. */
const LAST_USED_GRANULARITY_MS = 60_000;

/**
 * The workspace the Workspace-Id header names; undefined when absent, empty or 0. The reference
 * console sends 0 until it has learnt the user's workspaces (ui/src/stores/index.ts starts with
 * workspaceId 0), so 0 means "no choice yet": the user's default workspace.
 */
export function parseWorkspaceHeader(value: string | null): number | undefined {
  if (value === null || value.trim() === "") return undefined;
  if (!/^\d{1,9}$/.test(value.trim()))
    throw new BadRequest("The Workspace-Id header must be a positive integer.", {
      errors: [{ path: "Workspace-Id", in: "header", message: "must be a positive integer (a workspace id)" }],
    });
  const id = Number(value.trim());
  return id === 0 ? undefined : id;
}

/**
 * How the Workspace-Id header is used. "selected": it names the workspace to act in (a workspace
 * the caller is not a member of is a 404). "any": a user-level call that needs no particular
 * workspace; the header's workspace when the caller is a member of it, else the default one, so
 * any header works and a foreign id answers exactly like an unknown one or none.
 */
export type WorkspaceMode = "selected" | "any";

/** The user's accepted membership (the requested workspace, else the first one), with the user and role. */
interface MembershipRow {
  user_id: number;
  email: string;
  name: string;
  snapshot: string;
  workspace_id: number | null;
  role_id: number | null;
  role_name: string | null;
  policies: Policies | null;
}

const membershipColumns = Prisma.sql`u.id AS user_id, u.email, u.name, m.workspace_id, m.role_id, m.role_name, m.policies,
  pg_current_snapshot()::text AS snapshot`;

/**
 * LATERAL subquery `m` over the user `u`: the accepted membership in `workspace` (any when null,
 * then the one in `preferred` if there is one, else the first).
 */
const membershipOf = (workspace: Prisma.Sql | null, preferred?: number) => Prisma.sql`
  LEFT JOIN LATERAL (
    SELECT wu.workspace_id, wu.role_id, r.role_name, r.policies
      FROM workspace_users wu JOIN roles r ON r.id = wu.role_id
     WHERE wu.user_id = u.id AND wu.joined_at IS NOT NULL ${workspace ? Prisma.sql`AND wu.workspace_id = ${workspace}` : Prisma.empty}
     ORDER BY ${preferred !== undefined ? Prisma.sql`(wu.workspace_id = ${preferred}) DESC, ` : Prisma.empty}wu.id LIMIT 1
  ) m ON true`;

async function sessionLookup(
  claims: TokenClaims,
  userId: number,
  workspaceId: number | undefined,
  mode: WorkspaceMode,
) {
  const membership =
    mode === "any"
      ? membershipOf(null, workspaceId)
      : membershipOf(workspaceId !== undefined ? Prisma.sql`${workspaceId}` : null);
  // A password change ends every session issued before it. iat is in whole seconds, so sessions
  // issued after a change carry an iat rounded up to it (signToken's notBefore).
  // queryRows: a prepared statement on the pool, run on every authenticated request.
  const [row] = await queryRows<MembershipRow & { revoked: boolean }>(Prisma.sql`
    SELECT (EXISTS (SELECT 1 FROM revoked_tokens WHERE jti = ${claims.jti})
            OR ${claims.iat ?? 0}::bigint < COALESCE(CEIL(EXTRACT(EPOCH FROM u.password_changed_at)), 0)) AS revoked,
           ${membershipColumns}
      FROM users u ${membership}
     WHERE u.id = ${userId}`);
  if (!row || row.revoked) throw new Unauthorized(INVALID);
  return { membership: row, tokenRole: undefined };
}

async function apiTokenLookup(claims: TokenClaims, userId: number, requested: number | undefined) {
  const [row] = await queryRows<
    MembershipRow & {
      token_id: number;
      token_role_id: number | null;
      token_user_id: number;
      token_workspace_id: number;
      revoked_at: Date | null;
      expires_at: Date | null;
      last_used_at: Date | null;
      token_policies: Policies | null;
      token_role_name: string | null;
    }
  >(Prisma.sql`
    SELECT t.id AS token_id, t.role_id AS token_role_id, t.user_id AS token_user_id, t.workspace_id AS token_workspace_id, t.revoked_at,
           t.expires_at, t.last_used_at, tr.policies AS token_policies, tr.role_name AS token_role_name, ${membershipColumns}
      FROM api_tokens t
      LEFT JOIN roles tr ON tr.id = t.role_id
      JOIN users u ON u.id = t.user_id ${membershipOf(Prisma.sql`t.workspace_id`)}
     WHERE t.jti = ${claims.jti}`);
  if (!row || row.revoked_at || row.token_user_id !== userId) throw new Unauthorized(INVALID);
  if (row.expires_at && row.expires_at.getTime() <= Date.now()) throw new Unauthorized(INVALID);
  if (requested !== undefined && requested !== row.token_workspace_id) {
    throw new NotFound(`Workspace ${requested} was not found.`);
  }
  if (!row.last_used_at || row.last_used_at.getTime() < Date.now() - LAST_USED_GRANULARITY_MS) {
    // A lost update under concurrency is harmless.
    void prisma()
      .apiToken.update({ where: { id: row.token_id }, data: { lastUsedAt: new Date() } })
      .catch(() => undefined);
  }
  return {
    membership: row,
    tokenRole: row.token_policies ?? undefined,
    workspaceId: row.token_workspace_id,
    apiToken: {
      id: row.token_id,
      roleId: row.token_role_id,
      expiresAt: row.expires_at,
      // Named in its refusals (lib/auth/refusal.ts): the token's role, not its owner's.
      role: row.token_policies && row.token_role_name ? { name: row.token_role_name, policies: row.token_policies } : null,
    },
  };
}

export async function authenticate(
  token: string | null,
  workspaceHeader: string | null,
  mode: WorkspaceMode = "selected",
): Promise<AuthContext> {
  if (!token) throw new Unauthorized("Authentication required: send `Authorization: Bearer <token>`.");
  const claims = await verifyToken(token);
  if (!claims) throw new Unauthorized(INVALID);
  const requested = parseWorkspaceHeader(workspaceHeader);
  const userId = Number(claims.sub);
  if (!Number.isSafeInteger(userId) || userId < 1 || userId > 2_147_483_647) throw new Unauthorized(INVALID);

  // An API token is bound to its workspace: a user-level call simply uses that one.
  const found =
    claims.kind === "api_token"
      ? await apiTokenLookup(claims, userId, mode === "any" ? undefined : requested)
      : {
          ...(await sessionLookup(claims, userId, requested, mode)),
          workspaceId: mode === "any" ? undefined : requested,
        };
  const { membership: m, tokenRole, workspaceId } = found;
  const apiToken = "apiToken" in found ? found.apiToken : undefined;
  if (m.workspace_id === null || m.role_id === null || m.role_name === null || m.policies === null) {
    if (workspaceId !== undefined) throw new NotFound(`Workspace ${workspaceId} was not found.`);
    throw new Unauthorized(
      "This account is not a member of any workspace yet: accept an invitation through the link mailed to you.",
    );
  }
  return {
    user: { id: m.user_id, email: m.email, name: m.name },
    workspaceId: m.workspace_id,
    roleId: m.role_id,
    roleName: m.role_name,
    policies: tokenRole ? intersect(m.policies, tokenRole) : m.policies,
    tokenKind: claims.kind,
    jti: claims.jti,
    exp: claims.exp,
    snapshot: m.snapshot,
    ...(apiToken ? { apiToken } : {}),
  };
}

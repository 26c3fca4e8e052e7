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
import { sql, type RawBuilder } from "kysely";
import { prisma } from "@/lib/db/client";
import { compiledByShape, selectRows, sqlBuilder } from "@/lib/db/kysely";
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

/**
 * LATERAL subquery `m` over the user `u`: the accepted membership in `workspace` (any when null,
 * then the one in `preferred` if there is one, else the first), with its role.
 */
function membershipOf(workspace: number | RawBuilder<number> | null, preferred?: number) {
  return sqlBuilder()
    .selectFrom("workspace_users as wu")
    .innerJoin("roles as r", "r.id", "wu.role_id")
    .select(["wu.workspace_id", "wu.role_id", "r.role_name", "r.policies"])
    .where(sql<boolean>`wu.user_id = u.id`)
    .where("wu.joined_at", "is not", null)
    .$if(workspace !== null, (q) => q.where("wu.workspace_id", "=", workspace!))
    .$if(preferred !== undefined, (q) => q.orderBy((o) => o("wu.workspace_id", "=", preferred!), "desc"))
    .orderBy("wu.id")
    .limit(sql.lit(1))
    .$narrowType<{ policies: Policies }>()
    .as("m");
}

/** The user's (u) accepted membership (m), and the database snapshot read. */
const MEMBERSHIP_COLUMNS = ["u.id as user_id", "u.email", "u.name", "m.workspace_id", "m.role_id", "m.role_name", "m.policies"] as const;
const SNAPSHOT = sql<string>`pg_current_snapshot()::text`.as("snapshot");

/** Which membership a session's lookup reads: the header's workspace, any (the header's first), or the first. */
type SessionShape = "workspace" | "preferred" | "first";

// A password change ends every session issued before it. iat is in whole seconds, so sessions
// issued after a change carry an iat rounded up to it (signToken's notBefore).
const sessionQuery = compiledByShape((shape: SessionShape, at: { jti: string; iat: number; userId: number; workspaceId: number }) =>
  sqlBuilder()
    .selectFrom("users as u")
    .leftJoinLateral(membershipOf(shape === "workspace" ? at.workspaceId : null, shape === "preferred" ? at.workspaceId : undefined), (join) => join.onTrue())
    .select([...MEMBERSHIP_COLUMNS, SNAPSHOT])
    .select((eb) =>
      eb
        .or([
          eb.exists(eb.selectFrom("revoked_tokens").select(sql.lit(1).as("one")).where("jti", "=", at.jti)),
          eb(sql<number>`${at.iat}::bigint`, "<", sql<number>`COALESCE(CEIL(EXTRACT(EPOCH FROM u.password_changed_at)), 0)`),
        ])
        .$castTo<boolean>()
        .as("revoked"),
    )
    .where("u.id", "=", at.userId),
);

async function sessionLookup(
  claims: TokenClaims,
  userId: number,
  workspaceId: number | undefined,
  mode: WorkspaceMode,
) {
  // A prepared statement on the pool, run on every authenticated request.
  const shape: SessionShape = workspaceId === undefined ? "first" : mode === "any" ? "preferred" : "workspace";
  const [row] = await selectRows(sessionQuery(shape, { jti: claims.jti, iat: claims.iat ?? 0, userId, workspaceId: workspaceId ?? 0 }));
  if (!row || row.revoked) throw new Unauthorized(INVALID);
  return { membership: row, tokenRole: undefined };
}

const apiTokenQuery = compiledByShape((_shape: "token", at: { jti: string }) =>
  sqlBuilder()
    .selectFrom("api_tokens as t")
    .leftJoin("roles as tr", "tr.id", "t.role_id")
    .innerJoin("users as u", "u.id", "t.user_id")
    .leftJoinLateral(membershipOf(sql.ref<number>("t.workspace_id")), (join) => join.onTrue())
    .select([...MEMBERSHIP_COLUMNS, SNAPSHOT])
    .select(["t.id as token_id", "t.role_id as token_role_id", "t.user_id as token_user_id", "t.workspace_id as token_workspace_id", "t.revoked_at"])
    .select(["t.expires_at", "t.last_used_at", "tr.policies as token_policies", "tr.role_name as token_role_name"])
    .$narrowType<{ token_policies: Policies | null }>()
    .where("t.jti", "=", at.jti),
);

async function apiTokenLookup(claims: TokenClaims, userId: number, requested: number | undefined) {
  const [row] = await selectRows(apiTokenQuery("token", { jti: claims.jti }));
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

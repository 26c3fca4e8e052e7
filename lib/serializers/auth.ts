import type { CurrentUser } from "@/lib/services/accounts/auth";
import type { CurrentUserAttributes, CurrentUserBody, PasswordChanged, TokenDocument } from "./auth.schema";
import { iso, resource } from "./resource";

/** GET /api/v1/users/me: the user, the role it acts with here (effective policies), its workspaces. */
export const serializeCurrentUser = ({ user, auth }: CurrentUser): CurrentUserBody => ({
  data: resource(user.id, "users", {
    email: user.email,
    name: user.name,
    created_at: iso(user.createdAt),
    updated_at: iso(user.updatedAt),
    workspace_id: auth.workspaceId,
    token_kind: auth.tokenKind,
    role: { id: auth.roleId, role_name: auth.roleName, policies: auth.policies },
    workspaces: user.memberships.map((m) => ({
      id: m.workspace.id,
      name: m.workspace.name,
      role_name: m.role.name,
    })),
  } satisfies CurrentUserAttributes),
});

/** A session token (sign-in, password change): {data: {type: "token", id: <jwt>, attributes: {token}}}. */
export const serializeToken = (token: string): TokenDocument => ({ data: resource(token, "token", { token }) });

export const serializePasswordChanged = (token: string, message: string): PasswordChanged => ({
  data: resource(token, "token", { token, message }),
});

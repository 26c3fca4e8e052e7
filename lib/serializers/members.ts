import type { MemberRow } from "@/lib/services/accounts/members";
import type { MemberAttributes, MemberResource } from "./members.schema";
import { iso, resource } from "./resource";

/**
 * A workspace membership; its id is the user's id (paths are /workspaces/{id}/members/{user_id}).
 * The account's own profile (name, last sign-in) is shown only once the person has accepted the
 * invitation (joined_at): inviting an email must not reveal anything about an account that exists
 * elsewhere, nor whether one exists. Until then a member is its email and role, as typed, pending.
 */
export const serializeMember = (m: MemberRow): MemberResource => {
  const joined = m.joinedAt !== null;
  return resource(m.userId, "members", {
    user_id: m.userId,
    email: m.user.email,
    name: joined ? m.user.name : null,
    workspace_id: m.workspaceId,
    role_id: m.roleId,
    role_name: m.role.name,
    status: joined ? "active" : "pending",
    joined_at: iso(m.joinedAt),
    last_login_at: joined ? iso(m.user.lastLoginAt) : null,
    created_at: iso(m.createdAt),
    updated_at: iso(m.updatedAt),
  } satisfies MemberAttributes);
};

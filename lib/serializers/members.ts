import type { MemberRow } from "@/lib/services/members";
import { iso, resource } from "./resource";

/** A workspace membership; its id is the user's id (paths are /workspaces/{id}/members/{user_id}). */
export const serializeMember = (m: MemberRow) =>
  resource(m.userId, "members", {
    user_id: m.userId,
    email: m.user.email,
    name: m.user.name,
    workspace_id: m.workspaceId,
    role_id: m.roleId,
    role_name: m.role.name,
    last_login_at: iso(m.user.lastLoginAt),
    created_at: iso(m.createdAt),
    updated_at: iso(m.updatedAt),
  });

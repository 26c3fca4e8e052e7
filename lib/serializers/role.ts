import type { Role } from "@/lib/generated/prisma/client";
import { iso, resource } from "./resource";
import type { RoleAttributes, RoleResource } from "./role.schema";

export const serializeRole = (role: Role): RoleResource =>
  resource(role.id, "roles", {
    role_name: role.name,
    role_desc: role.description,
    role_type: role.roleType,
    workspace_id: role.workspaceId,
    policies: role.policies,
    created_at: iso(role.createdAt),
    updated_at: iso(role.updatedAt),
  } satisfies RoleAttributes);

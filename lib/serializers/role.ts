import type { Role } from "@/lib/generated/prisma/client";
import { rolePolicies } from "@/lib/validation/roles";
import { iso, resource } from "./resource";
import type { RoleAttributes, RoleResource } from "./role.schema";

/** `inUse`: who holds the role in the workspace (the list shows it, so the console can say why a role cannot go). */
export const serializeRole = (role: Role, inUse?: { members: number; apiTokens: number }): RoleResource =>
  resource(role.id, "roles", {
    role_name: role.name,
    role_desc: role.description,
    role_type: role.roleType,
    workspace_id: role.workspaceId,
    policies: rolePolicies(role),
    created_at: iso(role.createdAt),
    updated_at: iso(role.updatedAt),
    ...(inUse ? { in_use: { members: inUse.members, api_tokens: inUse.apiTokens } } : {}),
  } satisfies RoleAttributes);

import type { ApiTokenRow } from "@/lib/services/accounts/api-tokens";
import type {
  ApiTokenAttributes,
  ApiTokenResource,
  CreatedApiTokenAttributes,
  CreatedApiTokenResource,
} from "./api-tokens.schema";
import { iso, resource } from "./resource";

/** A token's listing entry: never the token itself. role_id/role_name null = the member's own role. */
export const serializeApiToken = (t: ApiTokenRow): ApiTokenResource =>
  resource(t.id, "api_tokens", {
    name: t.name,
    role_id: t.roleId,
    role_name: t.role?.name ?? null,
    user_id: t.userId,
    user_email: t.user.email,
    workspace_id: t.workspaceId,
    created_at: iso(t.createdAt),
    last_used_at: iso(t.lastUsedAt),
    expires_at: iso(t.expiresAt),
  } satisfies ApiTokenAttributes);

/** The creation response: the only time the token is shown. */
export const serializeCreatedApiToken = (t: ApiTokenRow & { token: string }): CreatedApiTokenResource =>
  resource(t.id, "api_tokens", {
    name: t.name,
    token: t.token,
    role_id: t.roleId,
    role_name: t.role?.name ?? null,
    expires_at: iso(t.expiresAt),
    created_at: iso(t.createdAt),
  } satisfies CreatedApiTokenAttributes);

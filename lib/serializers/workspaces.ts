import { ORGANIZATION_ID, organizationName } from "@/lib/settings/organization";
import type { WorkspaceRow } from "@/lib/services/accounts/workspaces";
import { iso, resource } from "./resource";
import type { WorkspaceAttributes, WorkspaceResource } from "./workspaces.schema";

/**
 * A workspace with the caller's role in it (role_name) and its member count, plus the members the
 * reference console shows (ui/src/services/settings.ts, views/Settings/Workspace.tsx): description,
 * region, status, organization_id and organization_name (lib/settings/organization.ts: one implicit
 * organization), and logo URLs (null: this server stores no logos). Workspaces here have no
 * lifecycle, so every one that exists is "active". The reference's per-workspace api_key is not
 * carried: this server has no such key, and a secret would not belong in a listing anyway.
 */
export const serializeWorkspace = (w: WorkspaceRow): WorkspaceResource =>
  resource(w.id, "workspaces", {
    name: w.name,
    slug: w.slug,
    description: w.description,
    region: w.region,
    status: "active" as const,
    organization_id: ORGANIZATION_ID,
    organization_name: organizationName(),
    role_name: w.members[0]?.role.name ?? null,
    members_count: w._count.members,
    workspace_logo_url: null,
    organization_logo_url: null,
    created_at: iso(w.createdAt),
    updated_at: iso(w.updatedAt),
  } satisfies WorkspaceAttributes);

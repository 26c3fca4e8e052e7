import type { WorkspaceRow } from "@/lib/services/workspaces";
import { iso, resource } from "./resource";

/** A workspace with the caller's role in it (role_name) and its member count. */
export const serializeWorkspace = (w: WorkspaceRow) =>
  resource(w.id, "workspaces", {
    name: w.name,
    slug: w.slug,
    role_name: w.members[0]?.role.name ?? null,
    members_count: w._count.members,
    created_at: iso(w.createdAt),
    updated_at: iso(w.updatedAt),
  });

// Catalog bodies: the create response is the bare record with an integer id (interface.md);
// update and discover return the {id: string, type, attributes} resource with catalog_hash (the
// reference's CatalogSerializer). A catalog stored before the protocol members existed gets them here.
import { withProtocolMembers } from "@/lib/connectors/shared/catalog";
import type { Catalog } from "@/lib/generated/prisma/client";
import type { CatalogAttributes, CatalogRecord, CatalogResource } from "./catalogs.schema";
import { iso, resource } from "./resource";

export const serializeCatalogRecord = (c: Catalog): CatalogRecord => ({
  id: c.id,
  connector_id: c.connectorId,
  workspace_id: c.workspaceId,
  catalog: withProtocolMembers(c.catalog),
  created_at: iso(c.createdAt),
  updated_at: iso(c.updatedAt),
});

export const serializeCatalog = (c: Catalog): CatalogResource =>
  resource(c.id, "catalogs", {
    connector_id: c.connectorId,
    workspace_id: c.workspaceId,
    catalog: withProtocolMembers(c.catalog),
    catalog_hash: c.catalogHash,
  } satisfies CatalogAttributes);

// Catalog bodies: the create response is the bare record with an integer id (the API contract);
// update and discover return the {id: string, type, attributes} resource with catalog_hash (the
// reference's CatalogSerializer). A catalog stored before the protocol members existed gets them here.
import { withProtocolMembers } from "@/lib/connectors/shared/catalog";
import type { Catalog } from "@/lib/generated/prisma/client";
import { parseCatalogAnswer } from "@/lib/validation/catalogs";
import type { CatalogAttributes, CatalogRecord, CatalogResource } from "./catalogs.schema";
import { iso, resource } from "./resource";

/**
 * The create answer's `catalog` also echoes the request's `json_schema`, as the reference's published
 * description of this endpoint declares (`catalog: {json_schema}`), beside the stored streams.
 */
export const serializeCatalogRecord = (c: Catalog, requested?: { json_schema?: Record<string, unknown> }): CatalogRecord => ({
  id: c.id,
  connector_id: c.connectorId,
  workspace_id: c.workspaceId,
  catalog: parseCatalogAnswer(
    requested?.json_schema ? { ...(withProtocolMembers(c.catalog) as object), json_schema: requested.json_schema } : withProtocolMembers(c.catalog),
    `connector ${c.connectorId}`,
  ),
  created_at: iso(c.createdAt),
  updated_at: iso(c.updatedAt),
});

export const serializeCatalog = (c: Catalog): CatalogResource =>
  resource(c.id, "catalogs", {
    connector_id: c.connectorId,
    workspace_id: c.workspaceId,
    catalog: parseCatalogAnswer(withProtocolMembers(c.catalog), `connector ${c.connectorId}`),
    catalog_hash: c.catalogHash,
  } satisfies CatalogAttributes);

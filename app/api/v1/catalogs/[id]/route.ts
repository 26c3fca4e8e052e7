// PUT /api/v1/catalogs/{id} - replace a connector's catalog; returns {data: catalog resource} with catalog_hash.
import { catalogs } from "@/lib/contract/connectors";
import { route } from "@/lib/http/handler";
import { serializeCatalog } from "@/lib/serializers/catalogs";
import { updateCatalog } from "@/lib/services/catalogue/catalogs";

export const PUT = route(catalogs.updateCatalog, async ({ auth, params, body }) => ({
  data: serializeCatalog(await updateCatalog(auth, params.id, body)),
}));

// POST /api/v1/catalogs - set a connector's catalog; returns the bare catalog record (integer id).
import { catalogs } from "@/lib/contract/connectors";
import { route } from "@/lib/http/handler";
import { serializeCatalogRecord } from "@/lib/serializers/catalogs";
import { createCatalog } from "@/lib/services/catalogue/catalogs";

export const POST = route(catalogs.createCatalog, async ({ auth, body }) =>
  serializeCatalogRecord(await createCatalog(auth, body), body.catalog),
);

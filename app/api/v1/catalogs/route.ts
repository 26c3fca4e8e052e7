// POST /api/v1/catalogs - set a connector's catalog; returns the bare catalog record (integer id).
import { route } from "@/lib/http/handler";
import { serializeCatalogRecord } from "@/lib/serializers/catalogs";
import { createCatalog } from "@/lib/services/catalogs";
import { createCatalogSchema } from "@/lib/validation/catalogs";

export const POST = route({ permission: ["connector", "create"], body: createCatalogSchema }, async ({ auth, body }) =>
  serializeCatalogRecord(await createCatalog(auth, body), body.catalog),
);

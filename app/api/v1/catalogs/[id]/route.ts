// PUT /api/v1/catalogs/{id} - replace a connector's catalog; returns {data: catalog resource} with catalog_hash.
import { z } from "zod";
import { idParam, route } from "@/lib/http/handler";
import { serializeCatalog } from "@/lib/serializers/catalogs";
import { updateCatalog } from "@/lib/services/catalogs";
import { updateCatalogSchema } from "@/lib/validation/catalogs";

export const PUT = route(
  { permission: ["connector", "update"], params: z.object({ id: idParam }), body: updateCatalogSchema },
  async ({ auth, params, body }) => ({ data: serializeCatalog(await updateCatalog(auth, params.id, body)) }),
);

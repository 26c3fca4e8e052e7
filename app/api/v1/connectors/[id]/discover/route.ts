// GET /api/v1/connectors/{id}/discover[?refresh=true] - the connector's catalog (discovered and stored when missing or refreshed).
import { z } from "zod";
import { idParam, route } from "@/lib/http/handler";
import { serializeCatalog } from "@/lib/serializers/catalogs";
import { discoverConnector } from "@/lib/services/connectors";
import { discoverConnectorQuerySchema } from "@/lib/validation/connectors";

export const GET = route(
  { permission: ["connector", "read"], params: z.object({ id: idParam }), query: discoverConnectorQuerySchema },
  async ({ auth, params, query }) => ({ data: serializeCatalog(await discoverConnector(auth, params.id, query.refresh)) }),
);

// GET /api/v1/connectors/{id}/discover[?refresh=true] - the connector's catalog (discovered and stored when missing or refreshed).
import { connectors } from "@/lib/contract/connectors";
import { route } from "@/lib/http/handler";
import { serializeCatalog } from "@/lib/serializers/catalogs";
import { discoverConnector } from "@/lib/services/catalogue/connectors";

export const GET = route(connectors.discoverConnector, async ({ auth, params, query }) => ({
  data: serializeCatalog(await discoverConnector(auth, params.id, query.refresh)),
}));

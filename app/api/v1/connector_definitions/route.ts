// GET /api/v1/connector_definitions - the connectors this server provides, filtered by type and category.
// A bare array, as the reference answers it (its console reads the body itself as the list).
import { connectorDefinitions } from "@/lib/contract/connectors";
import { route } from "@/lib/http/handler";
import { serializeConnectorDefinition } from "@/lib/serializers/connector-definitions";
import { listConnectorDefinitions } from "@/lib/services/catalogue/connector-definitions";

export const GET = route(connectorDefinitions.listConnectorDefinitions, async ({ query }) =>
  listConnectorDefinitions(query).map(serializeConnectorDefinition),
);

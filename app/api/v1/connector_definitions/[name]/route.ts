// GET /api/v1/connector_definitions/{name} - one definition with its configuration schema (name is case-insensitive).
// The bare object, as the reference answers it (its console reads connector_spec at the top).
import { connectorDefinitions } from "@/lib/contract/connectors";
import { route } from "@/lib/http/handler";
import { serializeConnectorDefinition } from "@/lib/serializers/connector-definitions";
import { findConnectorDefinition } from "@/lib/services/catalogue/connector-definitions";

export const GET = route(connectorDefinitions.getConnectorDefinition, async ({ params, query }) =>
  serializeConnectorDefinition(findConnectorDefinition(params.name, query.type)),
);

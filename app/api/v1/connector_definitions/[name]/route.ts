// GET /api/v1/connector_definitions/{name} - one definition with its configuration schema (name is case-insensitive).
// The bare object, as the reference answers it (its console reads connector_spec at the top).
import { route } from "@/lib/http/handler";
import { serializeConnectorDefinition } from "@/lib/serializers/connector-definitions";
import { findConnectorDefinition } from "@/lib/services/connector-definitions";
import { connectorDefinitionParamsSchema, showConnectorDefinitionQuerySchema } from "@/lib/validation/connector-definitions";

export const GET = route(
  { permission: ["connector_definition", "read"], params: connectorDefinitionParamsSchema, query: showConnectorDefinitionQuerySchema },
  async ({ params, query }) => serializeConnectorDefinition(findConnectorDefinition(params.name, query.type)),
);

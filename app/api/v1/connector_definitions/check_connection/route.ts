// POST /api/v1/connector_definitions/check_connection - try a configuration; 200 {result: success|failure, details, type, connection_status}.
import { connectorDefinitions } from "@/lib/contract/connectors";
import { route } from "@/lib/http/handler";
import { serializeConnectionStatus } from "@/lib/serializers/connection-status";
import { checkConnection } from "@/lib/services/catalogue/connector-definitions";

export const POST = route(connectorDefinitions.checkConnection, async ({ auth, body }) =>
  serializeConnectionStatus(await checkConnection(body, auth.workspaceId)),
);

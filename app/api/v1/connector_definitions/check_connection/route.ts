// POST /api/v1/connector_definitions/check_connection - try a configuration; 200 {result: success|failure, details, type, connection_status}.
import { route } from "@/lib/http/handler";
import { serializeConnectionStatus } from "@/lib/serializers/connection-status";
import { checkConnection } from "@/lib/services/connector-definitions";
import { checkConnectionSchema } from "@/lib/validation/connector-definitions";

export const POST = route({ permission: ["connector_definition", "create"], body: checkConnectionSchema }, async ({ body }) =>
  serializeConnectionStatus(await checkConnection(body)),
);

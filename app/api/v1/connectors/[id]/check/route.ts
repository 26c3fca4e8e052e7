// POST /api/v1/connectors/{id}/check - try a saved connector (optionally with unsaved settings); 200 as check_connection answers.
import { connectors } from "@/lib/contract/connectors";
import { route } from "@/lib/http/handler";
import { serializeConnectionStatus } from "@/lib/serializers/connection-status";
import { checkConnector } from "@/lib/services/catalogue/connectors";

export const POST = route(connectors.checkConnector, async ({ auth, params, body }) =>
  serializeConnectionStatus(await checkConnector(auth, params.id, body)),
);

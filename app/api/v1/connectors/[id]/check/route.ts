// POST /api/v1/connectors/{id}/check - try a saved connector (optionally with unsaved settings); 200 as check_connection answers.
import { z } from "zod";
import { idParam, route } from "@/lib/http/handler";
import { serializeConnectionStatus } from "@/lib/serializers/connection-status";
import { checkConnector } from "@/lib/services/connectors";
import { checkConnectorSchema } from "@/lib/validation/connectors";

export const POST = route(
  { permission: ["connector", "read"], params: z.object({ id: idParam }), body: checkConnectorSchema },
  async ({ auth, params, body }) => serializeConnectionStatus(await checkConnector(auth, params.id, body)),
);

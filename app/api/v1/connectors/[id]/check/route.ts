// POST /api/v1/connectors/{id}/check - try a saved connector (optionally with unsaved settings); 200 {result: success|failed, details}.
import { z } from "zod";
import { idParam, route } from "@/lib/http/handler";
import { checkConnector } from "@/lib/services/connectors";
import { checkConnectorSchema } from "@/lib/validation/connectors";

export const POST = route(
  { permission: ["connector", "read"], params: z.object({ id: idParam }), body: checkConnectorSchema },
  async ({ auth, params, body }) => checkConnector(auth, params.id, body),
);

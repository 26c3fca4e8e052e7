// POST /api/v1/connector_definitions/check_connection - try a configuration; 200 {result: success|failed, details}.
import { route } from "@/lib/http/handler";
import { checkConnection } from "@/lib/services/connector-definitions";
import { checkConnectionSchema } from "@/lib/validation/connector-definitions";

export const POST = route({ permission: ["connector_definition", "create"], body: checkConnectionSchema }, async ({ body }) =>
  checkConnection(body),
);

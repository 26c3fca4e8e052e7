// POST /api/v1/connectors/{id}/query_source - preview the first rows of a query on a source connector.
import { z } from "zod";
import { idParam, route } from "@/lib/http/handler";
import { querySource } from "@/lib/services/connectors";
import { querySourceSchema } from "@/lib/validation/connectors";

export const POST = route(
  { permission: ["connector", "read"], params: z.object({ id: idParam }), body: querySourceSchema },
  async ({ auth, params, body }) => ({ data: (await querySource(auth.workspaceId, params.id, body)).rows }),
);

// GET/PUT/DELETE /api/v1/connectors/{id} - show, update (masked secrets kept) or delete a connector.
import { z } from "zod";
import { idParam, noContent, route } from "@/lib/http/handler";
import { serializeConnector } from "@/lib/serializers/connectors";
import { deleteConnector, getConnector, updateConnector } from "@/lib/services/connectors";
import { updateConnectorSchema } from "@/lib/validation/connectors";

const params = z.object({ id: idParam });

export const GET = route({ permission: ["connector", "read"], params }, async ({ auth, params }) => ({
  data: serializeConnector(await getConnector(auth.workspaceId, params.id)),
}));

export const PUT = route({ permission: ["connector", "update"], params, body: updateConnectorSchema }, async ({ auth, params, body }) => ({
  data: serializeConnector(await updateConnector(auth, params.id, body.connector)),
}));

export const DELETE = route({ permission: ["connector", "delete"], params }, async ({ auth, params }) => {
  await deleteConnector(auth, params.id);
  return noContent();
});

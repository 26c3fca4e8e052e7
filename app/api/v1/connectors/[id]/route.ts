// GET/PUT/DELETE /api/v1/connectors/{id} - show, update (masked secrets kept) or delete a connector.
import { connectors } from "@/lib/contract/connectors";
import { route } from "@/lib/http/handler";
import { serializeConnector } from "@/lib/serializers/connectors";
import { deleteConnector, getConnector, updateConnector } from "@/lib/services/catalogue/connectors";

export const GET = route(connectors.getConnector, async ({ auth, params }) => ({
  data: serializeConnector(await getConnector(auth.workspaceId, params.id)),
}));

export const PUT = route(connectors.updateConnector, async ({ auth, params, body }) => ({
  data: serializeConnector(await updateConnector(auth, params.id, body.connector)),
}));

export const DELETE = route(connectors.deleteConnector, async ({ auth, params }) => {
  await deleteConnector(auth, params.id);
});

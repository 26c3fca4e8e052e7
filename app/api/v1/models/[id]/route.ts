// GET/PUT/DELETE /api/v1/models/{id} - show, update or delete a model (with the syncs that use it).
import { models } from "@/lib/contract/models";
import { route } from "@/lib/http/handler";
import { serializeModel } from "@/lib/serializers/models";
import { deleteModel, getModel, updateModel } from "@/lib/services/catalogue/models";

export const GET = route(models.getModel, async ({ auth, params }) => ({
  data: serializeModel(await getModel(auth.workspaceId, params.id)),
}));

export const PUT = route(models.updateModel, async ({ auth, params, body }) => ({
  data: serializeModel(await updateModel(auth, params.id, body.model)),
}));

export const DELETE = route(models.deleteModel, async ({ auth, params }) => {
  await deleteModel(auth, params.id);
});

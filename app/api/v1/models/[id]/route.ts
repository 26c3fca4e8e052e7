// GET/PUT/DELETE /api/v1/models/{id} - show, update or delete a model (409 while a sync uses it).
import { z } from "zod";
import { idParam, noContent, route } from "@/lib/http/handler";
import { serializeModel } from "@/lib/serializers/models";
import { deleteModel, getModel, updateModel } from "@/lib/services/models";
import { updateModelSchema } from "@/lib/validation/models";

const params = z.object({ id: idParam });

export const GET = route({ permission: ["model", "read"], params }, async ({ auth, params }) => ({
  data: serializeModel(await getModel(auth.workspaceId, params.id)),
}));

export const PUT = route({ permission: ["model", "update"], params, body: updateModelSchema }, async ({ auth, params, body }) => ({
  data: serializeModel(await updateModel(auth, params.id, body.model)),
}));

export const DELETE = route({ permission: ["model", "delete"], params }, async ({ auth, params }) => {
  await deleteModel(auth, params.id);
  return noContent();
});

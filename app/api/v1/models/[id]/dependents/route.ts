// GET /api/v1/models/{id}/dependents - what deleting the model would delete with it, and whether the caller may.
import { models } from "@/lib/contract/models";
import { route } from "@/lib/http/handler";
import { serializeDependents } from "@/lib/serializers/dependents";
import { deletionPlan, deletionRefusal } from "@/lib/services/catalogue/deletion";

export const GET = route(models.getModelDependents, async ({ auth, params }) => {
  const plan = await deletionPlan(auth.workspaceId, { kind: "model", id: params.id });
  return { data: serializeDependents(plan, deletionRefusal(auth, plan)) };
});

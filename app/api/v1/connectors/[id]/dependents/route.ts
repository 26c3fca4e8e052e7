// GET /api/v1/connectors/{id}/dependents - what deleting the connector would delete with it, and whether the caller may.
import { connectors } from "@/lib/contract/connectors";
import { route } from "@/lib/http/handler";
import { serializeDependents } from "@/lib/serializers/dependents";
import { deletionPlan, deletionRefusal } from "@/lib/services/catalogue/deletion";

export const GET = route(connectors.getConnectorDependents, async ({ auth, params }) => {
  const plan = await deletionPlan(auth.workspaceId, { kind: "connector", id: params.id });
  return { data: serializeDependents(plan, deletionRefusal(auth, plan)) };
});

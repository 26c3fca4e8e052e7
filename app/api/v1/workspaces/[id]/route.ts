// GET/PUT/DELETE /api/v1/workspaces/{id} - show, rename or delete a workspace (checked against the
// caller's role in THAT workspace; not a member → 404).
import { workspaces } from "@/lib/contract/workspaces";
import { route } from "@/lib/http/handler";
import { serializeWorkspace } from "@/lib/serializers/workspaces";
import { deleteWorkspace, getWorkspace, updateWorkspace } from "@/lib/services/accounts/workspaces";

export const GET = route(workspaces.getWorkspace, async ({ auth, params }) => ({
  data: serializeWorkspace(await getWorkspace(auth, params.id)),
}));

export const PUT = route(workspaces.updateWorkspace, async ({ auth, params, body }) => ({
  data: serializeWorkspace(await updateWorkspace(auth, params.id, body.workspace)),
}));

export const DELETE = route(workspaces.deleteWorkspace, async ({ auth, params }) => {
  await deleteWorkspace(auth, params.id);
});

// GET/PUT/DELETE /api/v1/workspaces/{id} - show, rename or delete a workspace (checked against the
// caller's role in THAT workspace; not a member → 404).
import { z } from "zod";
import { idParam, noContent, route } from "@/lib/http/handler";
import { serializeWorkspace } from "@/lib/serializers/workspaces";
import { deleteWorkspace, getWorkspace, updateWorkspace } from "@/lib/services/workspaces";
import { updateWorkspaceSchema } from "@/lib/validation/workspaces";

const params = z.object({ id: idParam });

export const GET = route({ permission: "member", params }, async ({ auth, params }) => ({
  data: serializeWorkspace(await getWorkspace(auth, params.id)),
}));

export const PUT = route(
  { permission: "member", params, body: updateWorkspaceSchema },
  async ({ auth, params, body }) => ({
    data: serializeWorkspace(await updateWorkspace(auth, params.id, body.workspace)),
  }),
);

export const DELETE = route({ permission: "member", params }, async ({ auth, params }) => {
  await deleteWorkspace(auth, params.id);
  return noContent();
});

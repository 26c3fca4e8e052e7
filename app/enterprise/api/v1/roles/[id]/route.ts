// GET/PUT/DELETE /enterprise/api/v1/roles/{id} - show, change or delete a role (system roles are read-only: 403).
import { z } from "zod";
import { idParam, noContent, route } from "@/lib/http/handler";
import { serializeRole } from "@/lib/serializers/role";
import { deleteRole, getRole, updateRole } from "@/lib/services/roles";
import { updateRoleSchema } from "@/lib/validation/roles";

const params = z.object({ id: idParam });

export const GET = route({ permission: "member", params }, async ({ auth, params }) => ({
  data: serializeRole(await getRole(auth.workspaceId, params.id)),
}));

export const PUT = route(
  { permission: ["role", "update"], params, body: updateRoleSchema },
  async ({ auth, params, body }) => ({
    data: serializeRole(await updateRole(auth, params.id, body.role)),
  }),
);

export const DELETE = route({ permission: ["role", "delete"], params }, async ({ auth, params }) => {
  await deleteRole(auth, params.id);
  return noContent();
});

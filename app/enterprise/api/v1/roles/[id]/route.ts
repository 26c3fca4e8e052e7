// GET/PUT/DELETE /enterprise/api/v1/roles/{id} - show, change or delete a role (system roles are read-only: 403).
import { roles } from "@/lib/contract/roles";
import { route } from "@/lib/http/handler";
import { serializeRole } from "@/lib/serializers/role";
import { deleteRole, getRole, updateRole } from "@/lib/services/accounts/roles";

export const GET = route(roles.getRole, async ({ auth, params }) => ({
  data: serializeRole(await getRole(auth.workspaceId, params.id)),
}));

export const PUT = route(roles.updateRole, async ({ auth, params, body }) => ({
  data: serializeRole(await updateRole(auth, params.id, body.role)),
}));

export const DELETE = route(roles.deleteRole, async ({ auth, params }) => {
  await deleteRole(auth, params.id);
});

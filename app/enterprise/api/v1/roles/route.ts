// GET /enterprise/api/v1/roles - system roles and this workspace's custom roles.
import { route } from "@/lib/http/handler";
import { serializeRole } from "@/lib/serializers/role";
import { listRoles } from "@/lib/services/roles";

export const GET = route({ permission: "member" }, async ({ auth }) => ({
  data: (await listRoles(auth.workspaceId)).map(serializeRole),
}));

// GET /enterprise/api/v1/roles - system roles and this workspace's custom roles; POST - create a custom role.
import { roles } from "@/lib/contract/roles";
import { route } from "@/lib/http/handler";
import { serializeRole } from "@/lib/serializers/role";
import { createRole, listRoles, roleUsage } from "@/lib/services/accounts/roles";

export const GET = route(roles.listRoles, async ({ auth }) => {
  const [list, usage] = await Promise.all([listRoles(auth.workspaceId), roleUsage(auth.workspaceId)]);
  return { data: list.map((r) => serializeRole(r, usage.get(r.id) ?? { members: 0, apiTokens: 0 })) };
});

export const POST = route(roles.createRole, async ({ auth, body }) => ({
  data: serializeRole(await createRole(auth, body.role)),
}));

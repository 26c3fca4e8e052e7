// GET /enterprise/api/v1/roles - system roles and this workspace's custom roles; POST - create a custom role.
import { route } from "@/lib/http/handler";
import { serializeRole } from "@/lib/serializers/role";
import { createRole, listRoles } from "@/lib/services/roles";
import { createRoleSchema } from "@/lib/validation/roles";

export const GET = route({ permission: "member" }, async ({ auth }) => ({
  data: (await listRoles(auth.workspaceId)).map(serializeRole),
}));

export const POST = route(
  { permission: ["role", "create"], body: createRoleSchema },
  async ({ auth, body }) =>
    Response.json({ data: serializeRole(await createRole(auth, body.role)) }, { status: 201 }),
);

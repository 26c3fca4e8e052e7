// GET/PUT/DELETE /api/v1/workspaces/{id}/members/{user_id} - show a member, change its role, remove it
// (the last Admin can be neither demoted nor removed: 409).
import { z } from "zod";
import { idParam, noContent, route } from "@/lib/http/handler";
import { serializeMember } from "@/lib/serializers/members";
import { getMember, removeMember, updateMember } from "@/lib/services/members";
import { updateMemberSchema } from "@/lib/validation/members";

const params = z.object({ id: idParam, user_id: idParam });

export const GET = route({ permission: "member", params }, async ({ auth, params }) => ({
  data: serializeMember(await getMember(auth, params.id, params.user_id)),
}));

export const PUT = route(
  { permission: "member", params, body: updateMemberSchema },
  async ({ auth, params, body }) => ({
    data: serializeMember(await updateMember(auth, params.id, params.user_id, body.member)),
  }),
);

export const DELETE = route({ permission: "member", params }, async ({ auth, params }) => {
  await removeMember(auth, params.id, params.user_id);
  return noContent();
});

// GET/PUT/DELETE /api/v1/workspaces/{id}/members/{user_id} - show a member, change its role, remove it
// (the last Admin can be neither demoted nor removed: 409).
import { workspaces } from "@/lib/contract/workspaces";
import { route } from "@/lib/http/handler";
import { serializeMember } from "@/lib/serializers/members";
import { getMember, removeMember, updateMember } from "@/lib/services/accounts/members";

export const GET = route(workspaces.getMember, async ({ auth, params }) => ({
  data: serializeMember(await getMember(auth, params.id, params.user_id)),
}));

export const PUT = route(workspaces.updateMember, async ({ auth, params, body }) => ({
  data: serializeMember(await updateMember(auth, params.id, params.user_id, body.member)),
}));

export const DELETE = route(workspaces.deleteMember, async ({ auth, params }) => {
  await removeMember(auth, params.id, params.user_id);
});

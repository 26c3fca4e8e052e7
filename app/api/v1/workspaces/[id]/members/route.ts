// GET/POST /api/v1/workspaces/{id}/members - list members; invite one (a pending membership and a link
// mailed to the address).
import { consoleBase } from "@/lib/settings/console-url";
import { workspaces } from "@/lib/contract/workspaces";
import { route } from "@/lib/http/handler";
import { pageLinks } from "@/lib/http/pagination";
import { serializeMember } from "@/lib/serializers/members";
import { addMember, listMembers } from "@/lib/services/accounts/members";

export const GET = route(workspaces.listMembers, async ({ auth, url, params, query: { page } }) => {
  const { rows, total } = await listMembers(auth, params.id, page);
  return { data: rows.map(serializeMember), ...pageLinks(url, page, total) };
});

export const POST = route(workspaces.createMember, async ({ auth, url, params, body }) => ({
  data: serializeMember(await addMember(auth, params.id, body.member, { consoleBase: consoleBase(url) })),
}));

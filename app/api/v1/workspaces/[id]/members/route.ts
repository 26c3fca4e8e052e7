// GET/POST /api/v1/workspaces/{id}/members - list members; add one (creating the account for a new email).
import { z } from "zod";
import { idParam, route } from "@/lib/http/handler";
import { pageLinks, parsePage } from "@/lib/http/pagination";
import { serializeMember } from "@/lib/serializers/members";
import { addMember, listMembers } from "@/lib/services/members";
import { createMemberSchema } from "@/lib/validation/members";

const params = z.object({ id: idParam });

export const GET = route({ permission: "member", params }, async ({ auth, url, params }) => {
  const page = parsePage(url.searchParams);
  const { rows, total } = await listMembers(auth, params.id, page);
  return { data: rows.map(serializeMember), ...pageLinks(url, page, total) };
});

export const POST = route(
  { permission: "member", params, body: createMemberSchema },
  async ({ auth, params, body }) =>
    Response.json({ data: serializeMember(await addMember(auth, params.id, body.member)) }, { status: 201 }),
);

// GET /api/v1/workspaces - workspaces the caller belongs to; POST - create one (the caller becomes its Admin).
import { route } from "@/lib/http/handler";
import { pageLinks, parsePage } from "@/lib/http/pagination";
import { serializeWorkspace } from "@/lib/serializers/workspaces";
import { createWorkspace, listWorkspaces } from "@/lib/services/workspaces";
import { createWorkspaceSchema } from "@/lib/validation/workspaces";

export const GET = route({ permission: "user" }, async ({ auth, url }) => {
  const page = parsePage(url.searchParams);
  const { rows, total } = await listWorkspaces(auth, page);
  return { data: rows.map(serializeWorkspace), ...pageLinks(url, page, total) };
});

export const POST = route(
  { permission: ["workspace", "create"], body: createWorkspaceSchema },
  async ({ auth, body }) =>
    Response.json({ data: serializeWorkspace(await createWorkspace(auth, body.workspace)) }, { status: 201 }),
);

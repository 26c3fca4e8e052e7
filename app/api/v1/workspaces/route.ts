// GET /api/v1/workspaces - workspaces the caller belongs to; POST - create one (the caller becomes its Admin).
import { workspaces } from "@/lib/contract/workspaces";
import { route } from "@/lib/http/handler";
import { pageLinks } from "@/lib/http/pagination";
import { serializeWorkspace } from "@/lib/serializers/workspaces";
import { createWorkspace, listWorkspaces } from "@/lib/services/accounts/workspaces";

export const GET = route(workspaces.listWorkspaces, async ({ auth, url, query: { page } }) => {
  const { rows, total } = await listWorkspaces(auth, page);
  return { data: rows.map(serializeWorkspace), ...pageLinks(url, page, total) };
});

export const POST = route(workspaces.createWorkspace, async ({ auth, body }) => ({
  data: serializeWorkspace(await createWorkspace(auth, body.workspace)),
}));

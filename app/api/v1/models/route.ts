// GET /api/v1/models - list the workspace's models (filter connector_id); POST - create one.
import { models } from "@/lib/contract/models";
import { route } from "@/lib/http/handler";
import { pageLinks } from "@/lib/http/pagination";
import { serializeModel } from "@/lib/serializers/models";
import { createModel, listModels } from "@/lib/services/catalogue/models";

export const GET = route(models.listModels, async ({ auth, url, query: { page, ...filters } }) => {
  const { rows, total } = await listModels(auth.workspaceId, filters, page);
  return { data: rows.map(serializeModel), ...pageLinks(url, page, total) };
});

export const POST = route(models.createModel, async ({ auth, body }) => ({
  data: serializeModel(await createModel(auth, body.model)),
}));

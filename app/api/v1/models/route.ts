// GET /api/v1/models - list the workspace's models (filter connector_id); POST - create one.
import { route } from "@/lib/http/handler";
import { pageLinks, parsePage } from "@/lib/http/pagination";
import { serializeModel } from "@/lib/serializers/models";
import { createModel, listModels } from "@/lib/services/models";
import { createModelSchema, listModelsQuerySchema } from "@/lib/validation/models";

export const GET = route({ permission: ["model", "read"], query: listModelsQuerySchema }, async ({ auth, url, query }) => {
  const page = parsePage(url.searchParams);
  const { rows, total } = await listModels(auth.workspaceId, query, page);
  return { data: rows.map(serializeModel), ...pageLinks(url, page, total) };
});

export const POST = route({ permission: ["model", "create"], body: createModelSchema }, async ({ auth, body }) =>
  Response.json({ data: serializeModel(await createModel(auth, body.model)) }, { status: 201 }),
);

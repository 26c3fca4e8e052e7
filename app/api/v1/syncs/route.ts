// GET /api/v1/syncs - list syncs of the workspace (newest first); POST - create one (bare resource, and in `data`).
import { route } from "@/lib/http/handler";
import { pageLinks, parsePage } from "@/lib/http/pagination";
import { serializeSync, serializeSyncDocument } from "@/lib/serializers/syncs";
import { createSync, listSyncs } from "@/lib/services/syncs";
import { createSyncSchema, listSyncsQuerySchema } from "@/lib/validation/syncs";

export const GET = route({ permission: ["sync", "read"], query: listSyncsQuerySchema }, async ({ auth, url, query }) => {
  const page = parsePage(url.searchParams);
  const { rows, total } = await listSyncs(auth.workspaceId, query, page);
  return { data: rows.map(serializeSync), ...pageLinks(url, page, total) };
});

// interface.md: the created sync is returned directly with 200; `data` repeats it for the reference's console.
export const POST = route({ permission: ["sync", "create"], body: createSyncSchema }, async ({ auth, body }) =>
  serializeSyncDocument(await createSync(auth, body.sync)),
);

// GET /api/v1/syncs - list syncs of the workspace (newest first); POST - create one (bare resource, and in `data`).
import { actorAccess } from "@/lib/auth/actors";
import { syncs } from "@/lib/contract/syncs";
import { route } from "@/lib/http/handler";
import { pageLinks } from "@/lib/http/pagination";
import { serializeSync, serializeSyncDocument } from "@/lib/serializers/syncs";
import { createSync, listSyncs } from "@/lib/services/syncs/syncs";

// Remembered while the database is unchanged (lib/http/remembered.ts): dashboards poll this list.
export const GET = route(
  syncs.listSyncs,
  async ({ auth, url, query: { page, ...filters } }) => {
    const { rows, total } = await listSyncs(auth.workspaceId, filters, page);
    const access = actorAccess(auth);
    return { data: rows.map((s) => serializeSync(s, access)), ...pageLinks(url, page, total) };
  },
  { remember: true },
);

// The API contract returns the created sync directly with 200; `data` repeats it for the reference's console.
export const POST = route(syncs.createSync, async ({ auth, body }) => serializeSyncDocument(await createSync(auth, body.sync), actorAccess(auth)));

// GET/PUT/DELETE /api/v1/syncs/{id} - show (bare resource, and in `data`), update ({success, message, data}) or soft-delete a sync.
import { actorAccess } from "@/lib/auth/actors";
import { syncs } from "@/lib/contract/syncs";
import { route } from "@/lib/http/handler";
import { serializeSync, serializeSyncDocument } from "@/lib/serializers/syncs";
import { deleteSync, getSync, updateSync } from "@/lib/services/syncs/syncs";

export const GET = route(syncs.getSync, async ({ auth, params }) => serializeSyncDocument(await getSync(auth.workspaceId, params.id), actorAccess(auth)));

export const PUT = route(syncs.updateSync, async ({ auth, params, body }) => ({
  success: true as const,
  message: "Sync updated successfully",
  data: serializeSync(await updateSync(auth, params.id, body.sync), actorAccess(auth)),
}));

export const DELETE = route(syncs.deleteSync, async ({ auth, params }) => {
  await deleteSync(auth, params.id);
});

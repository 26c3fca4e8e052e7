// GET/PUT/DELETE /api/v1/syncs/{id} - show (bare resource, and in `data`), update ({success, message, data}) or soft-delete a sync.
import { z } from "zod";
import { idParam, noContent, route } from "@/lib/http/handler";
import { serializeSync, serializeSyncDocument } from "@/lib/serializers/syncs";
import { deleteSync, getSync, updateSync } from "@/lib/services/syncs";
import { updateSyncSchema } from "@/lib/validation/syncs";

const params = z.object({ id: idParam });

export const GET = route({ permission: ["sync", "read"], params }, async ({ auth, params }) =>
  serializeSyncDocument(await getSync(auth.workspaceId, params.id)),
);

export const PUT = route({ permission: ["sync", "update"], params, body: updateSyncSchema }, async ({ auth, params, body }) => ({
  success: true,
  message: "Sync updated successfully",
  data: serializeSync(await updateSync(auth, params.id, body.sync)),
}));

export const DELETE = route({ permission: ["sync", "delete"], params }, async ({ auth, params }) => {
  await deleteSync(auth, params.id);
  return noContent();
});

// PATCH /api/v1/syncs/{id}/enable - {enable: false} disables the sync, {enable: true} makes it pending again.
import { actorAccess } from "@/lib/auth/actors";
import { syncs } from "@/lib/contract/syncs";
import { route } from "@/lib/http/handler";
import { serializeSync } from "@/lib/serializers/syncs";
import { setSyncEnabled } from "@/lib/services/syncs/syncs";

export const PATCH = route(syncs.enableSync, async ({ auth, params, body }) => ({
  data: serializeSync(await setSyncEnabled(auth, params.id, body.enable), actorAccess(auth)),
}));

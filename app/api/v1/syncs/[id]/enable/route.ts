// PATCH /api/v1/syncs/{id}/enable - {enable: false} disables the sync, {enable: true} makes it pending again.
import { z } from "zod";
import { idParam, route } from "@/lib/http/handler";
import { serializeSync } from "@/lib/serializers/syncs";
import { setSyncEnabled } from "@/lib/services/syncs";
import { enableSyncSchema } from "@/lib/validation/syncs";

export const PATCH = route(
  { permission: ["sync", "update"], params: z.object({ id: idParam }), body: enableSyncSchema },
  async ({ auth, params, body }) => ({ data: serializeSync(await setSyncEnabled(auth, params.id, body.enable)) }),
);

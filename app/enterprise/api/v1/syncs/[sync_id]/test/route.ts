// POST /enterprise/api/v1/syncs/{sync_id}/test - send one random row of the model through the sync.
import { z } from "zod";
import { idParam, route } from "@/lib/http/handler";
import { testSync } from "@/lib/services/syncs";

export const POST = route({ permission: ["sync", "create"], params: z.object({ sync_id: idParam }) }, async ({ auth, params }) => {
  await testSync(auth, params.sync_id);
  return { message: "Sync test triggered successful" };
});

// POST /enterprise/api/v1/syncs/{sync_id}/test - send one random row of the model through the sync.
import { syncs } from "@/lib/contract/syncs";
import { route } from "@/lib/http/handler";
import { testSync } from "@/lib/services/syncs";

export const POST = route(syncs.testSync, async ({ auth, params }) => {
  await testSync(auth, params.sync_id);
  return { message: "Sync test triggered successful" };
});

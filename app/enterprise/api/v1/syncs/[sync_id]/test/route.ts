// POST /enterprise/api/v1/syncs/{sync_id}/test - send one row of the model (picked by primary key, or random) through the sync.
import { syncs } from "@/lib/contract/syncs";
import { route } from "@/lib/http/handler";
import { serializeSyncRun } from "@/lib/serializers/sync-runs";
import { testSync } from "@/lib/services/syncs/syncs";
import { actorAccess } from "@/lib/auth/actors";

export const POST = route(syncs.testSync, async ({ auth, params, body }) => {
  const run = await testSync(auth, params.sync_id, body ?? {});
  const which = body?.primary_key !== undefined ? `the row with primary key ${body.primary_key}` : "one random row";
  return { message: `Test run ${run.id} queued: it sends ${which} to the destination.`, data: serializeSyncRun(run, actorAccess(auth)) };
});

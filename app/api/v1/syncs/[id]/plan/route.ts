// POST /api/v1/syncs/{id}/plan - dry run: what the next run would insert, update, delete and skip, with sample rows.
import { syncs } from "@/lib/contract/syncs";
import { route } from "@/lib/http/handler";
import { serializeSyncPlan } from "@/lib/serializers/plans";
import { planSync } from "@/lib/services/syncs/syncs";

export const POST = route(syncs.planSync, async ({ auth, params, body, req }) =>
  serializeSyncPlan(params.id, await planSync(auth, params.id, body ?? {}, req.signal)),
);

// POST /api/v1/syncs/{id}/sequence_runs - run the sync now and the syncs downstream of it as their upstreams
// succeed (an Idempotency-Key header makes a retried start answer the same sequence run).
import { actorAccess } from "@/lib/auth/actors";
import { sequences } from "@/lib/contract/sequences";
import { route } from "@/lib/http/handler";
import { serializeSequenceRun } from "@/lib/serializers/sequences";
import { startSequenceRun } from "@/lib/services/syncs/sequence-runs";
import { triggerKeyOf } from "@/lib/services/syncs/trigger-keys";

export const POST = route(sequences.startSequenceRun, async ({ auth, params, req }) => ({
  data: serializeSequenceRun(await startSequenceRun(auth, params.id, triggerKeyOf(req.headers)), actorAccess(auth)),
}));

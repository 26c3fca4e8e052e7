// POST /api/v1/syncs/{id}/sequence_runs - run the sync now and the syncs downstream of it as their upstreams succeed.
import { actorAccess } from "@/lib/auth/actors";
import { sequences } from "@/lib/contract/sequences";
import { route } from "@/lib/http/handler";
import { serializeSequenceRun } from "@/lib/serializers/sequences";
import { startSequenceRun } from "@/lib/services/sequence-runs";

export const POST = route(sequences.startSequenceRun, async ({ auth, params }) => ({
  data: serializeSequenceRun(await startSequenceRun(auth, params.id), actorAccess(auth)),
}));

// GET /api/v1/sequence_runs/{id}[?wait=N] - progress of a sequence run; wait long-polls until it settles.
import { actorAccess } from "@/lib/auth/actors";
import { sequences } from "@/lib/contract/sequences";
import { route } from "@/lib/http/handler";
import { serializeSequenceRun } from "@/lib/serializers/sequences";
import { waitForSequenceRun } from "@/lib/services/syncs/sequence-runs";

export const GET = route(sequences.getSequenceRun, async ({ auth, params, query, req }) => ({
  data: serializeSequenceRun(await waitForSequenceRun({ workspaceId: auth.workspaceId, userId: auth.user.id }, params.id, query.wait ?? 0, req.signal), actorAccess(auth)),
}));

// GET/PUT /api/v1/syncs/{id}/run_after - the syncs this sync runs after (PUT replaces the list).
import { sequences } from "@/lib/contract/sequences";
import { route } from "@/lib/http/handler";
import { serializeRunAfter } from "@/lib/serializers/sequences";
import { getRunAfter, setRunAfter } from "@/lib/services/syncs/run-after";

export const GET = route(sequences.getRunAfter, async ({ auth, params }) => ({ data: serializeRunAfter(await getRunAfter(auth.workspaceId, params.id)) }));

export const PUT = route(sequences.setRunAfter, async ({ auth, params, body }) => ({ data: serializeRunAfter(await setRunAfter(auth, params.id, body)) }));

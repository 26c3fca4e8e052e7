// GET /api/v1/syncs/{id}/live - a live sync's state, lag and throughput (docs/live-syncs.md).
import { syncs } from "@/lib/contract/syncs";
import { route } from "@/lib/http/handler";
import { serializeLiveStatus } from "@/lib/serializers/live-status";
import { getLiveStatus } from "@/lib/services/syncs/live-status";

export const GET = route(syncs.getSyncLive, async ({ auth, params }) => ({ data: serializeLiveStatus(await getLiveStatus(auth.workspaceId, params.id)) }));

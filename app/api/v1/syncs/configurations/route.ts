// GET /api/v1/syncs/configurations - the mapping types a sync configuration may use (fixed payload).
import { syncs } from "@/lib/contract/syncs";
import { syncConfigurationsPayload } from "@/lib/sync-rules/configurations";
import { route } from "@/lib/http/handler";

export const GET = route(syncs.getSyncConfigurations, async () => syncConfigurationsPayload);

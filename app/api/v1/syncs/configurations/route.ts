// GET /api/v1/syncs/configurations - the mapping types a sync configuration may use (fixed payload).
import { syncConfigurationsPayload } from "@/lib/sync-config/configurations";
import { route } from "@/lib/http/handler";

export const GET = route({ permission: ["sync", "read"] }, async () => syncConfigurationsPayload);

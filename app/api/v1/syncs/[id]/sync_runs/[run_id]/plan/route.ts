// GET /api/v1/syncs/{sync_id}/sync_runs/{id}/plan - the plan a run kept, with the sample rows it was held with.
import { syncRuns } from "@/lib/contract/sync-runs";
import { route } from "@/lib/http/handler";
import { getSyncRunPlan } from "@/lib/services/syncs/runs";

export const GET = route(syncRuns.getSyncRunPlan, async ({ auth, params }) => getSyncRunPlan(auth.workspaceId, params.sync_id, params.id));

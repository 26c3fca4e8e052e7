// GET /api/v1/reports - workspace activity (sync runs and rows over time) for the dashboard.
import { auditAndReports } from "@/lib/contract/roles";
import { route } from "@/lib/http/handler";
import { workspaceActivity } from "@/lib/services/insights/reports";

export const GET = route(auditAndReports.getReport, async ({ auth, query }) => ({
  data: await workspaceActivity(auth.workspaceId, query),
}));

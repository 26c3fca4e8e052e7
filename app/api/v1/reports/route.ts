// GET /api/v1/reports - workspace activity (sync runs and rows over time) for the dashboard.
import { route } from "@/lib/http/handler";
import { workspaceActivity } from "@/lib/services/reports";
import { reportQuerySchema } from "@/lib/validation/reports";

export const GET = route(
  { permission: ["report", "read"], query: reportQuerySchema },
  async ({ auth, query }) => ({
    data: await workspaceActivity(auth.workspaceId, query),
  }),
);

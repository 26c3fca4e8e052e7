// GET /api/v1/audit_logs - who changed what in the workspace, newest first.
import { route } from "@/lib/http/handler";
import { pageLinks, parsePage } from "@/lib/http/pagination";
import { serializeAuditLog } from "@/lib/serializers/audit";
import { listAuditLogs } from "@/lib/services/audit";
import { listAuditLogsQuerySchema } from "@/lib/validation/audit";

export const GET = route(
  { permission: ["audit_log", "read"], query: listAuditLogsQuerySchema },
  async ({ auth, url, query }) => {
    const page = parsePage(url.searchParams);
    const { rows, total } = await listAuditLogs(auth.workspaceId, query, page);
    return { data: rows.map(serializeAuditLog), ...pageLinks(url, page, total) };
  },
);

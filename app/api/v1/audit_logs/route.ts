// GET /api/v1/audit_logs - who changed what in the workspace, newest first.
import { auditAndReports } from "@/lib/contract/roles";
import { route } from "@/lib/http/handler";
import { pageLinks } from "@/lib/http/pagination";
import { serializeAuditLog } from "@/lib/serializers/audit";
import { listAuditLogs } from "@/lib/services/insights/audit";

export const GET = route(auditAndReports.listAuditLogs, async ({ auth, url, query: { page, ...filters } }) => {
  const { rows, total } = await listAuditLogs(auth.workspaceId, filters, page);
  return { data: rows.map(serializeAuditLog), ...pageLinks(url, page, total) };
});

import type { AuditLogRow } from "@/lib/services/insights/audit";
import type { AuditLogAttributes, AuditLogResource } from "./audit.schema";
import { jsonObjectSchema } from "@/lib/validation/connectors";
import { parseStored } from "@/lib/validation/stored";
import { iso, resource } from "./resource";

export const serializeAuditLog = (log: AuditLogRow): AuditLogResource =>
  resource(log.id, "audit_logs", {
    action: log.action,
    resource_type: log.resourceType,
    resource_id: log.resourceId,
    user_id: log.userId,
    user_email: log.user?.email ?? null,
    user_name: log.user?.name ?? null,
    workspace_id: log.workspaceId,
    metadata: parseStored(jsonObjectSchema, log.metadata, `metadata of audit entry ${log.id}`),
    created_at: iso(log.createdAt),
  } satisfies AuditLogAttributes);

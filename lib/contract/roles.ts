// Roles (system ones read-only, custom ones of the workspace), the audit log and reports.
import { z } from "zod";
import { listSchema, paginated } from "@/lib/http/pagination";
import { auditLogSchema } from "@/lib/serializers/audit.schema";
import { reportSchema } from "@/lib/serializers/reports.schema";
import { roleSchema } from "@/lib/serializers/role.schema";
import { listAuditLogsQuerySchema } from "@/lib/validation/audit";
import { idParam } from "@/lib/validation/ids";
import { reportQuerySchema } from "@/lib/validation/reports";
import { createRoleSchema, updateRoleSchema } from "@/lib/validation/roles";
import { operation } from "./operation";

const byId = z.object({ id: idParam });
const role = z.strictObject({ data: roleSchema });

export const roles = {
  listRoles: operation({
    operationId: "listRoles",
    method: "get",
    path: "/enterprise/api/v1/roles",
    tag: "Roles",
    summary: "System roles and the workspace's custom roles",
    permission: "member",
    status: 200,
    response: z.strictObject({ data: z.array(roleSchema) }),
    notes: "Not paginated (no links).",
  }),
  createRole: operation({
    operationId: "createRole",
    method: "post",
    path: "/enterprise/api/v1/roles",
    tag: "Roles",
    summary: "Create a custom role",
    permission: ["role", "create"],
    body: createRoleSchema,
    status: 201,
    response: role,
    errors: [409],
    notes: "403 when the role has permissions you (or your API token) do not hold; 409 when the name is taken.",
  }),
  getRole: operation({
    operationId: "getRole",
    method: "get",
    path: "/enterprise/api/v1/roles/{id}",
    tag: "Roles",
    summary: "Show a role",
    permission: "member",
    params: byId,
    status: 200,
    response: role,
  }),
  updateRole: operation({
    operationId: "updateRole",
    method: "put",
    path: "/enterprise/api/v1/roles/{id}",
    tag: "Roles",
    summary: "Change a custom role",
    permission: ["role", "update"],
    params: byId,
    body: updateRoleSchema,
    status: 200,
    response: role,
    errors: [409],
    notes: "403 for system roles, for the role you act with, and when the role before or after the change has permissions you do not hold.",
  }),
  deleteRole: operation({
    operationId: "deleteRole",
    method: "delete",
    path: "/enterprise/api/v1/roles/{id}",
    tag: "Roles",
    summary: "Delete a custom role",
    permission: ["role", "delete"],
    params: byId,
    status: 204,
    errors: [409],
    notes: "403 for system roles, the role you act with, or one with permissions you do not hold; 409 while a member or API token holds it.",
  }),
};

export const auditAndReports = {
  listAuditLogs: operation({
    operationId: "listAuditLogs",
    method: "get",
    path: "/api/v1/audit_logs",
    tag: "Audit log",
    summary: "The workspace's audit log, newest first",
    permission: ["audit_log", "read"],
    query: paginated(listAuditLogsQuerySchema),
    status: 200,
    response: listSchema(auditLogSchema),
  }),
  getReport: operation({
    operationId: "getReport",
    method: "get",
    path: "/api/v1/reports",
    tag: "Reports",
    summary: "Sync runs and rows over time (workspace_activity)",
    permission: ["report", "read"],
    query: reportQuerySchema,
    status: 200,
    response: reportSchema,
  }),
};

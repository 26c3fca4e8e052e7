// The audit log entry, as serializeAuditLog (./audit.ts) builds it.
import { z } from "zod";
import { jsonObjectSchema } from "@/lib/validation/connectors";
import { dateTime, resourceSchema } from "./resource";

export const auditLogAttributesSchema = z.strictObject({
  action: z.string(),
  resource_type: z.string(),
  resource_id: z.string().nullable(),
  user_id: z.number().int().nullable(),
  user_email: z.string().nullable(),
  user_name: z.string().nullable(),
  workspace_id: z.number().int(),
  metadata: jsonObjectSchema.describe("What changed."),
  created_at: dateTime(),
});
export type AuditLogAttributes = z.infer<typeof auditLogAttributesSchema>;
export const auditLogSchema = resourceSchema("audit_logs", auditLogAttributesSchema).meta({ id: "AuditLog" });
export type AuditLogResource = z.infer<typeof auditLogSchema>;

// Query shape of the audit log listing (shared by the console filters and the OpenAPI document).
import { z } from "zod";
import { queryIntId } from "./ids";

/** The kinds of resource the services audit (lib/services/*: `audit(auth, action, <type>, ...)`), for the console's filter. */
export const AUDIT_RESOURCE_TYPES = [
  "alert_channel",
  "alert_rule",
  "api_token",
  "catalog",
  "config",
  "connector",
  "member",
  "model",
  "role",
  "sync",
  "sync_run",
  "webhook_subscription",
  "workspace",
] as const;

export const listAuditLogsQuerySchema = z.object({
  resource_type: z
    .string()
    .trim()
    .regex(/^[a-z_]{1,50}$/, "must be a resource type in snake_case, e.g. sync or api_token")
    .optional()
    .describe(
      "Only entries about this kind of resource, e.g. sync, connector, workspace, member, role, api_token.",
    ),
  resource_id: z
    .string()
    .trim()
    .regex(/^[\w-]{1,64}$/, "must be an id")
    .optional()
    .describe("Only entries about this resource id (use with resource_type)."),
  user_id: queryIntId("a user id")
    .optional()
    .describe("Only entries made by this user."),
});
export type ListAuditLogsQuery = z.infer<typeof listAuditLogsQuerySchema>;

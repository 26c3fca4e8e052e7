// Alert resources, as ./alerts.ts builds them: channels (a Slack URL masked), rules with the syncs
// they fire for now, and events with how each channel's delivery went.
import { z } from "zod";
import { ALERT_CHANNEL_TYPES, ALERT_CONDITIONS } from "@/lib/validation/alerts";
import { dateTime, resourceSchema } from "./resource";

export const alertChannelAttributesSchema = z.strictObject({
  name: z.string(),
  channel_type: z.enum(ALERT_CHANNEL_TYPES),
  recipients: z.array(z.string()).nullable().describe("email channels: the addresses; null for the others."),
  url: z.string().nullable().describe("slack and webhook channels: the URL; a Slack URL is a secret and shows as the mask."),
  url_host: z.string().nullable().describe("The URL's host (also for a masked Slack URL), to tell channels apart."),
  workspace_id: z.number().int(),
  created_at: dateTime(),
  updated_at: dateTime(),
});
export type AlertChannelAttributes = z.infer<typeof alertChannelAttributesSchema>;
export const alertChannelSchema = resourceSchema("alert_channels", alertChannelAttributesSchema).meta({ id: "AlertChannel" });
export type AlertChannelResource = z.infer<typeof alertChannelSchema>;

export const alertFiringSchema = z.strictObject({
  sync_id: z.number().int(),
  since: dateTime(),
});

export const alertRuleAttributesSchema = z.strictObject({
  name: z.string(),
  sync_id: z.number().int().nullable().describe("The sync watched; null: every sync of the workspace."),
  condition: z.enum(ALERT_CONDITIONS),
  threshold: z.number().nullable(),
  channel_ids: z.array(z.number().int()),
  enabled: z.boolean(),
  status: z.enum(["ok", "firing"]).describe("firing while the condition holds for at least one sync."),
  firing: z.array(alertFiringSchema).describe("The syncs the rule fires for now, and since when."),
  workspace_id: z.number().int(),
  created_at: dateTime(),
  updated_at: dateTime(),
});
export type AlertRuleAttributes = z.infer<typeof alertRuleAttributesSchema>;
export const alertRuleSchema = resourceSchema("alert_rules", alertRuleAttributesSchema).meta({ id: "AlertRule" });
export type AlertRuleResource = z.infer<typeof alertRuleSchema>;

export const alertDeliverySchema = z.strictObject({
  channel_id: z.number().int(),
  channel_name: z.string(),
  channel_type: z.enum(ALERT_CHANNEL_TYPES),
  status: z
    .enum(["pending", "sent", "logged", "failed"])
    .describe("logged: an email channel while SMTP_URL is unset (the message was written to the server log instead)."),
  error: z.string().nullable(),
  at: dateTime().nullable(),
});
export type AlertDelivery = z.infer<typeof alertDeliverySchema>;

export const alertEventAttributesSchema = z.strictObject({
  alert_rule_id: z.number().int().nullable().describe("null once the rule was deleted."),
  rule_name: z.string(),
  sync_id: z.number().int(),
  sync_run_id: z.number().int().nullable(),
  kind: z.enum(["firing", "resolved"]),
  subject: z.string(),
  message: z.string(),
  deliveries: z.array(alertDeliverySchema),
  created_at: dateTime(),
});
export type AlertEventAttributes = z.infer<typeof alertEventAttributesSchema>;
export const alertEventSchema = resourceSchema("alert_events", alertEventAttributesSchema).meta({ id: "AlertEvent" });
export type AlertEventResource = z.infer<typeof alertEventSchema>;

export const alertTestResultSchema = z.strictObject({
  data: z.strictObject({
    channel_id: z.number().int(),
    status: z.enum(["sent", "logged", "failed"]),
    error: z.string().nullable().describe("Why the test message did not go out (the receiver's answer, the outbound policy, SMTP)."),
    subject: z.string(),
    message: z.string().describe("The test message as sent (or logged)."),
  }),
});
export type AlertTestResult = z.infer<typeof alertTestResultSchema>;

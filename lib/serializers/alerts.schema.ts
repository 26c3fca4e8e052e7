// Alert resources, as ./alerts.ts builds them: channels (a Slack URL masked), rules with the syncs
// they fire for now, and events with how each channel's delivery went.
import { z } from "zod";
import { ALERT_CHANNEL_TYPES, ALERT_CONDITIONS } from "@/lib/validation/alerts";
import { dateTime, resourceSchema } from "./resource";

export const alertRecipientCountsSchema = z.strictObject({
  mailed: z.number().int(),
  unconfirmed: z.number().int(),
  suppressed: z.number().int(),
});

export const alertRecipientSchema = z.strictObject({
  email: z.string(),
  status: z
    .enum(["member", "confirmed", "pending", "unsubscribed"])
    .describe(
      "member: a member of the workspace (its account's verified address), mailed at once; confirmed: confirmed the mailed link; pending: gets no alert until it confirms; unsubscribed: used the unsubscribe link of an alert mail, gets nothing more from this workspace.",
    ),
  confirmation_sent_at: dateTime().nullable().describe("pending: when the confirmation link was mailed; null while a cap holds it back (it goes out when the channel is saved again or alerts)."),
});

export const alertChannelAttributesSchema = z.strictObject({
  name: z.string(),
  channel_type: z.enum(ALERT_CHANNEL_TYPES),
  recipients: z.array(z.string()).nullable().describe("email channels: the addresses; null for the others."),
  recipient_states: z.array(alertRecipientSchema).nullable().describe("email channels: whether each address gets alerts (member, confirmed) or not (pending, unsubscribed); null for the others."),
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
    .enum(["pending", "sent", "logged", "failed", "suppressed", "unconfirmed"])
    .describe(
      "logged: an email channel while SMTP_URL is unset (the message was written to the server log instead); suppressed: the workspace reached ALERT_MAX_MAILS_PER_HOUR, so (some) recipients were not mailed (`error` says how many); unconfirmed: no recipient of the email channel is a member or has confirmed, so nothing was mailed.",
    ),
  error: z.string().nullable(),
  recipients: alertRecipientCountsSchema.nullable().default(null).describe("email channels: how many recipients were mailed, not confirmed yet, and suppressed by the hourly cap; null for the others."),
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
    status: z.enum(["sent", "logged", "failed", "suppressed", "unconfirmed"]),
    error: z.string().nullable().describe("Why the test message did not go out (the receiver's answer, the outbound policy, SMTP, the hourly mail cap, no confirmed recipient)."),
    subject: z.string(),
    message: z.string().describe("The test message as sent (or logged)."),
  }),
});
export type AlertTestResult = z.infer<typeof alertTestResultSchema>;

// Request shapes of the alert endpoints: channels (where messages go), rules (what is watched) and
// the events list. Shared by the console forms and the OpenAPI document (docs/alerts.md).
import { z } from "zod";
import { AlertChannelType, AlertCondition } from "@/lib/generated/prisma/enums";
import { intId, queryIntId } from "./ids";

export const ALERT_CHANNEL_TYPES: readonly AlertChannelType[] = Object.values(AlertChannelType);
export const ALERT_CONDITIONS: readonly AlertCondition[] = Object.values(AlertCondition);

/** The unit of each condition's threshold; null: the condition takes none. */
export const THRESHOLD_UNITS: Readonly<Record<AlertCondition, "percent" | "rows" | "minutes" | "bytes" | "seconds" | null>> = {
  run_failed: null,
  rejected_rows_percent: "percent",
  rejected_rows: "rows",
  run_duration: "minutes",
  rows_changed: "rows",
  sync_not_succeeded: "minutes",
  live_lag_bytes: "bytes",
  live_lag_seconds: "seconds",
};

const name = z
  .string({ error: "is required" })
  .trim()
  .min(1, "must not be empty")
  .max(100, "must be at most 100 characters")
  .describe("Shown in the console and in each message.");

const channelFields = {
  name,
  channel_type: z.enum(ALERT_CHANNEL_TYPES, { error: `must be one of: ${ALERT_CHANNEL_TYPES.join(", ")}` }).describe(
    "email: mail to `recipients` over SMTP_URL (logged and listed when it is unset); slack: a Slack incoming webhook `url` (a secret, masked in answers); webhook: a JSON POST to `url`.",
  ),
  recipients: z
    .array(z.email({ error: "must be an email address" }).max(254), { error: "must be a list of email addresses" })
    .min(1, "must name at least one address")
    .max(1000, "must be at most 1000 addresses")
    .nullish()
    .describe(
      "email channels: who gets the messages (at most ALERT_MAX_RECIPIENTS_PER_CHANNEL, default 20). Members of the workspace get them at once; any other address is mailed a link to confirm first, and gets nothing else until it does.",
    ),
  url: z
    .string({ error: "must be a URL" })
    .trim()
    .max(2000, "must be at most 2000 characters")
    .nullish()
    .describe(
      "slack and webhook channels: where messages are POSTed (http or https, allowed by the server's outbound policy). A Slack URL is answered masked; sending the mask back keeps it.",
    ),
};

type ChannelShape = { channel_type?: AlertChannelType; recipients?: string[] | null; url?: string | null };

/** The fields a channel of its type needs (on update: only when the type or those fields are sent). */
export function requireTypeFields(v: ChannelShape, ctx: z.RefinementCtx, path: string[]): void {
  if (!v.channel_type) return;
  if (v.channel_type === "email" && !v.recipients?.length) {
    ctx.addIssue({ code: "custom", path: [...path, "recipients"], message: "is required for an email channel" });
  }
  if (v.channel_type !== "email" && !v.url) {
    ctx.addIssue({ code: "custom", path: [...path, "url"], message: `is required for a ${v.channel_type} channel` });
  }
}

/**
 * Channels and rules one workspace may have. Every rule that fires sends to each of its channels:
 * without caps, one member could turn one failing run into thousands of messages. Email is bounded
 * further by settings (ALERT_MAX_EMAIL_CHANNELS, ALERT_MAX_RECIPIENTS_PER_CHANNEL,
 * ALERT_MAX_MAILS_PER_HOUR) and goes only to members and confirmed addresses (docs/alerts.md).
 */
export const MAX_ALERT_CHANNELS = 50;
export const MAX_ALERT_RULES = 100;

export const createAlertChannelSchema = z
  .object({
    alert_channel: z.object(channelFields, { error: "is required: send {alert_channel: {name, channel_type, recipients? | url?}}" }),
  })
  .superRefine((v, ctx) => requireTypeFields(v.alert_channel, ctx, ["alert_channel"]));
export type CreateAlertChannelInput = z.infer<typeof createAlertChannelSchema>["alert_channel"];

export const updateAlertChannelSchema = z.object({
  alert_channel: z.object(
    {
      name: name.optional(),
      channel_type: channelFields.channel_type.optional(),
      recipients: channelFields.recipients,
      url: channelFields.url,
    },
    { error: "is required: send {alert_channel: {...the fields to change}}" },
  ),
});
export type UpdateAlertChannelInput = z.infer<typeof updateAlertChannelSchema>["alert_channel"];

/** Thresholds stop here; bytes (a slot's WAL) may go to a terabyte. */
const MAX_THRESHOLD = 1_000_000_000;
const MAX_BYTES_THRESHOLD = 1_000_000_000_000;

const ruleFields = {
  name,
  sync_id: intId("The sync watched; null or absent: every sync of the workspace.", "a sync id").nullish(),
  condition: z.enum(ALERT_CONDITIONS, { error: `must be one of: ${ALERT_CONDITIONS.join(", ")}` }).describe(
    "run_failed: a run failed (a canceled run is not a failure); rejected_rows_percent / rejected_rows: a run's rejected rows above `threshold` percent / rows; run_duration: a run took (or runs) longer than `threshold` minutes; rows_changed: a run sent more than `threshold` rows; sync_not_succeeded: no successful run for `threshold` minutes (checked periodically); live_lag_bytes / live_lag_seconds: a live sync trails its source by more than `threshold` bytes (WAL its slot holds) / seconds (checked periodically, docs/live-syncs.md).",
  ),
  threshold: z
    .number({ error: "must be a number" })
    .positive("must be greater than 0")
    .max(MAX_BYTES_THRESHOLD, `must be at most ${MAX_BYTES_THRESHOLD}`)
    .nullish()
    .describe("Percent, rows, minutes, bytes or seconds, by condition; leave out for run_failed. At most 1000000000 (bytes: 1000000000000)."),
  channel_ids: z
    .array(intId(undefined, "an alert channel id"), { error: "must be a list of alert channel ids" })
    .min(1, "must name at least one channel")
    .max(20, "must be at most 20 channels")
    .describe("The channels that get the firing and resolved messages."),
  enabled: z.boolean({ error: "must be true or false" }).optional().describe("A disabled rule is not evaluated. Default true."),
};

/** What is wrong with a rule's threshold for its condition, or null (also for a merged update). */
export function thresholdProblem(condition: AlertCondition, threshold: number | null | undefined): string | null {
  const unit = THRESHOLD_UNITS[condition];
  if (unit && (threshold === undefined || threshold === null)) return `is required for ${condition} (in ${unit})`;
  if (unit === "percent" && typeof threshold === "number" && threshold > 100) return "must be a percentage of at most 100";
  if (unit === "rows" && typeof threshold === "number" && !Number.isInteger(threshold)) return "must be a whole number of rows";
  if (unit === "bytes" && typeof threshold === "number" && !Number.isInteger(threshold)) return "must be a whole number of bytes";
  if (unit !== "bytes" && typeof threshold === "number" && threshold > MAX_THRESHOLD) return `must be at most ${MAX_THRESHOLD}`;
  return null;
}

export function requireThreshold(v: { condition?: AlertCondition; threshold?: number | null }, ctx: z.RefinementCtx, path: string[]): void {
  const problem = v.condition ? thresholdProblem(v.condition, v.threshold) : null;
  if (problem) ctx.addIssue({ code: "custom", path: [...path, "threshold"], message: problem });
}

export const createAlertRuleSchema = z
  .object({
    alert_rule: z.object(ruleFields, { error: "is required: send {alert_rule: {name, condition, threshold?, sync_id?, channel_ids}}" }),
  })
  .superRefine((v, ctx) => requireThreshold(v.alert_rule, ctx, ["alert_rule"]));
export type CreateAlertRuleInput = z.infer<typeof createAlertRuleSchema>["alert_rule"];

export const updateAlertRuleSchema = z.object({
  alert_rule: z.object(
    {
      name: name.optional(),
      sync_id: ruleFields.sync_id,
      condition: ruleFields.condition.optional(),
      threshold: ruleFields.threshold,
      channel_ids: ruleFields.channel_ids.optional(),
      enabled: ruleFields.enabled,
    },
    { error: "is required: send {alert_rule: {...the fields to change}}" },
  ),
});
export type UpdateAlertRuleInput = z.infer<typeof updateAlertRuleSchema>["alert_rule"];

export const listAlertEventsQuerySchema = z.object({
  alert_rule_id: queryIntId("an alert rule id").optional().describe("Only this rule's events."),
  sync_id: queryIntId("a sync id").optional().describe("Only events about this sync."),
});
export type ListAlertEventsQuery = z.infer<typeof listAlertEventsQuerySchema>;

/** The body of the public confirm and unsubscribe endpoints: the token of the mailed link. */
export const alertSubscriptionTokenSchema = z.object({
  token: z
    .string({ error: "is required: the token of the link in the mail" })
    .trim()
    .min(1, "is required: the token of the link in the mail")
    .max(200, "must be at most 200 characters")
    .describe("The `token` of the link in the mail."),
});
export type AlertSubscriptionTokenInput = z.infer<typeof alertSubscriptionTokenSchema>;

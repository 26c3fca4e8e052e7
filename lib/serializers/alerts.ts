// Alert resources. A channel's configuration is decrypted here and a Slack webhook URL (a credential)
// is masked, so no endpoint can return it by forgetting to; its host stays visible.
import { SECRET_MASK } from "@/lib/connectors/shared/secrets";
import type { AlertChannel, AlertEvent, AlertRule, AlertState } from "@/lib/generated/prisma/client";
import type { AlertChannelView, ChannelTestResult } from "@/lib/services/notifications/alerts";
import { channelConfig } from "@/lib/services/notifications/alerts/channels";
import { deliveriesOf } from "@/lib/services/notifications/alerts/deliver";
import type {
  AlertChannelAttributes,
  AlertChannelResource,
  AlertEventAttributes,
  AlertEventResource,
  AlertRuleAttributes,
  AlertRuleResource,
  AlertTestResult,
} from "./alerts.schema";
import { iso, resource } from "./resource";

function hostOf(url: string | undefined): string | null {
  if (!url) return null;
  try {
    return new URL(url).host;
  } catch {
    return null;
  }
}

/** A channel read without its recipients' states (`recipient_states` null) only where none is wanted. */
export function serializeAlertChannel(c: AlertChannel | AlertChannelView): AlertChannelResource {
  const states = "recipientStates" in c ? c.recipientStates : null;
  const config = channelConfig(c);
  const url = config.url ? (c.channelType === "slack" ? SECRET_MASK : config.url) : null;
  return resource(c.id, "alert_channels", {
    name: c.name,
    channel_type: c.channelType,
    recipients: c.channelType === "email" ? (config.recipients ?? []) : null,
    recipient_states: states
      ? states.map((r) => ({ email: r.email, status: r.status, confirmation_sent_at: r.confirmationSentAt ? iso(r.confirmationSentAt) : null }))
      : null,
    url,
    url_host: hostOf(config.url),
    workspace_id: c.workspaceId,
    created_at: iso(c.createdAt),
    updated_at: iso(c.updatedAt),
  } satisfies AlertChannelAttributes);
}

export const serializeAlertRule = (r: AlertRule & { states: AlertState[] }): AlertRuleResource =>
  resource(r.id, "alert_rules", {
    name: r.name,
    sync_id: r.syncId,
    condition: r.condition,
    threshold: r.threshold,
    channel_ids: r.channelIds,
    enabled: r.enabled,
    status: r.states.some((s) => s.status === "firing") ? "firing" : "ok",
    firing: r.states.filter((s) => s.status === "firing").map((s) => ({ sync_id: s.syncId, since: iso(s.since) })),
    workspace_id: r.workspaceId,
    created_at: iso(r.createdAt),
    updated_at: iso(r.updatedAt),
  } satisfies AlertRuleAttributes);

export const serializeAlertEvent = (e: AlertEvent): AlertEventResource =>
  resource(e.id, "alert_events", {
    alert_rule_id: e.alertRuleId,
    rule_name: e.ruleName,
    sync_id: e.syncId,
    sync_run_id: e.syncRunId,
    kind: e.kind,
    subject: e.subject,
    message: e.message,
    deliveries: deliveriesOf(e.deliveries),
    created_at: iso(e.createdAt),
  } satisfies AlertEventAttributes);

export const serializeAlertTestResult = (t: ChannelTestResult): AlertTestResult => ({
  data: { channel_id: t.channelId, status: t.status, error: t.error, subject: t.subject, message: t.message },
});

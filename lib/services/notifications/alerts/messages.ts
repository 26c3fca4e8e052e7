// The words of alert messages: subject and text for email and Slack, the JSON body of a generic
// webhook. Built from the event row alone, so a retried delivery sends exactly what the first sent.
import "server-only";
import { env } from "@/lib/settings/env";
import type { AlertChannel, AlertEvent } from "@/lib/generated/prisma/client";
import type { AlertMessage } from "./senders";
import { quoted } from "./subject";

export interface RunSummary {
  id: number;
  outcome: string;
  total_rows: number;
  failed_rows: number;
  error: string | null;
  minutes: number | null;
}

const syncLabel = (sync: { id: number; name: string }) => (sync.name ? `"${sync.name}" (sync ${sync.id})` : `sync ${sync.id}`);

/** Where the console shows the run (or the sync), when CONSOLE_URL says where the console is. */
function consoleLink(syncId: number, runId: number | null): string | null {
  const base = env.CONSOLE_URL?.replace(/\/+$/, "");
  if (!base) return null;
  return runId ? `${base}/syncs/${syncId}/runs/${runId}` : `${base}/syncs/${syncId}`;
}

/** Subject and text of a firing or resolved event, stored on the event when it is created. */
export function composeEvent(input: {
  kind: "firing" | "resolved";
  ruleName: string;
  condition: string;
  sync: { id: number; name: string };
  run: RunSummary | null;
  since: Date | null;
}): { subject: string; message: string } {
  const label = syncLabel(input.sync);
  // The product's words around the workspace's (quoted, short, one line: subject.ts).
  const sync = input.sync.name ? `${quoted(input.sync.name)} (sync ${input.sync.id})` : `sync ${input.sync.id}`;
  const subject = `[${input.kind === "firing" ? "Firing" : "Resolved"}] Datasync alert ${quoted(input.ruleName)}: ${sync}`;
  const lines = [
    input.kind === "firing"
      ? `Alert "${input.ruleName}" is firing for ${label}: ${input.condition}.`
      : `Alert "${input.ruleName}" is resolved for ${label}: no longer ${input.condition}.`,
  ];
  if (input.run) {
    const r = input.run;
    const took = r.minutes === null ? "" : r.minutes < 1 ? `, took ${Math.round(r.minutes * 60)} s` : `, took ${r.minutes.toFixed(1)} min`;
    lines.push(`Run ${r.id}: ${r.outcome}, ${r.total_rows} rows sent, ${r.failed_rows} rejected${took}.`);
    if (r.error) lines.push(`Error: ${r.error.slice(0, 500)}`);
  }
  if (input.kind === "resolved" && input.since) lines.push(`It had been firing since ${input.since.toISOString()}.`);
  const link = consoleLink(input.sync.id, input.run?.id ?? null);
  if (link) lines.push(`Open: ${link}`);
  return { subject, message: lines.join("\n") };
}

/** What a channel receives for a stored event. */
export function eventMessage(event: AlertEvent): AlertMessage {
  return {
    subject: event.subject,
    text: event.message,
    payload: {
      event: `alert.${event.kind}`,
      alert_event_id: event.id,
      alert_rule_id: event.alertRuleId,
      rule_name: event.ruleName,
      sync_id: event.syncId,
      sync_run_id: event.syncRunId,
      subject: event.subject,
      message: event.message,
      occurred_at: event.createdAt.toISOString(),
    },
  };
}

/** The message of a channel's test button. */
export function testMessage(channel: Pick<AlertChannel, "id" | "name">): AlertMessage {
  const subject = `[Test] Datasync alert channel ${quoted(channel.name)}`;
  const text = `This is a test message from Datasync for the alert channel "${channel.name}". Alerts of the rules that use this channel arrive here.`;
  return {
    subject,
    text,
    payload: { event: "alert.test", alert_channel_id: channel.id, channel_name: channel.name, subject, message: text, occurred_at: new Date().toISOString() },
  };
}

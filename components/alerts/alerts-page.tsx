"use client";
// The console's alerts: the rules (firing or ok), the channels they send to (each with a test
// button), and the alert events with each channel's delivery, which is where an email logged for
// want of SMTP_URL can still be read.
import { createColumnHelper } from "@tanstack/react-table";
import { useMemo, useState } from "react";
import { relativeTime } from "@/components/common/format";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardHeader, PageHeader } from "@/components/ui/card";
import { ConfirmDialog } from "@/components/ui/dialog";
import { DataTable } from "@/components/ui/data-table";
import { EmptyState } from "@/components/ui/states";
import {
  useAlertChannels,
  useAlertRules,
  useDeleteAlertChannel,
  useDeleteAlertRule,
  useTestAlertChannel,
  useUpdateAlertRule,
  type AlertChannel,
  type AlertRule,
  type AlertTestResult,
} from "@/lib/api-client/alerts";
import { useCan } from "@/lib/api-client/settings";
import { useSyncs } from "@/lib/api-client/syncs";
import { THRESHOLD_UNITS } from "@/lib/validation/alerts";
import { ChannelDialog } from "./channel-dialog";
import { AlertEventsCard } from "./events-card";
import { CONDITION_LABELS, RuleDialog } from "./rule-dialog";

const ruleCol = createColumnHelper<AlertRule>();
const channelCol = createColumnHelper<AlertChannel>();

const RECIPIENT_BADGE = {
  member: { tone: "green", text: "member" },
  confirmed: { tone: "green", text: "confirmed" },
  pending: { tone: "amber", text: "pending confirmation" },
  unsubscribed: { tone: "slate", text: "unsubscribed" },
} as const;

type RecipientStates = NonNullable<AlertChannel["attributes"]["recipient_states"]>;

/** Each address of an email channel with whether it gets alerts: only members and confirmed addresses do. */
function RecipientList({ states }: { states: RecipientStates }) {
  return (
    <ul className="space-y-1" aria-label="Recipients">
      {states.map((r) => (
        <li key={r.email} className="flex flex-wrap items-center gap-1">
          <span>{r.email}</span>
          <Badge tone={RECIPIENT_BADGE[r.status].tone}>{r.status === "pending" && !r.confirmation_sent_at ? "pending (confirmation not sent yet)" : RECIPIENT_BADGE[r.status].text}</Badge>
        </li>
      ))}
    </ul>
  );
}

function conditionText(r: AlertRule["attributes"]): string {
  const unit = THRESHOLD_UNITS[r.condition];
  return unit ? `${CONDITION_LABELS[r.condition]} ${r.threshold}${unit === "percent" ? "%" : ` ${unit}`}` : CONDITION_LABELS[r.condition];
}

export function AlertsPage() {
  const rules = useAlertRules();
  const channels = useAlertChannels();
  const canCreate = useCan("alert", "create");
  const canUpdate = useCan("alert", "update");
  const canDelete = useCan("alert", "delete");
  const toggle = useUpdateAlertRule();
  const removeRule = useDeleteAlertRule();
  const removeChannel = useDeleteAlertChannel();
  const test = useTestAlertChannel();
  const [creating, setCreating] = useState<"rule" | "channel" | null>(null);
  const [editing, setEditing] = useState<AlertRule | null>(null);
  const [deleting, setDeleting] = useState<{ rule?: AlertRule; channel?: AlertChannel } | null>(null);
  const [tested, setTested] = useState<AlertTestResult | null>(null);
  const syncs = useSyncs({ page: 1, perPage: 100 });
  const syncName = useMemo(() => new Map(syncs.data?.data.map((s) => [Number(s.id), s.attributes.name || `Sync ${s.id}`])), [syncs.data]);
  const channelName = useMemo(() => new Map(channels.data?.data.map((c) => [Number(c.id), c.attributes.name])), [channels.data]);

  const ruleColumns = useMemo(
    () => [
      ruleCol.accessor((r) => r.attributes.name, { id: "name", header: "Name", cell: (i) => <span className="font-medium text-slate-900">{i.getValue()}</span> }),
      ruleCol.accessor((r) => conditionText(r.attributes), { id: "condition", header: "Condition" }),
      ruleCol.accessor((r) => (r.attributes.sync_id ? (syncName.get(r.attributes.sync_id) ?? `Sync ${r.attributes.sync_id}`) : "Every sync"), { id: "sync", header: "Sync" }),
      ruleCol.accessor((r) => r.attributes.channel_ids.map((id) => channelName.get(id) ?? `#${id}`).join(", "), { id: "channels", header: "Channels" }),
      ruleCol.display({
        id: "status",
        header: "Status",
        cell: ({ row: { original: r } }) =>
          !r.attributes.enabled ? <Badge>Disabled</Badge> : r.attributes.status === "firing" ? <Badge tone="red">Firing ({r.attributes.firing.length})</Badge> : <Badge tone="green">OK</Badge>,
      }),
      ruleCol.display({
        id: "actions",
        header: () => <span className="sr-only">Actions</span>,
        // Three buttons do not fit the column at 1280 px on one line: they wrap inside it instead of hiding under Status.
        cell: ({ row: { original: r } }) => (
          <div className="flex flex-wrap justify-end gap-1">
            {canUpdate && (
              <Button size="sm" variant="ghost" aria-label={`Edit ${r.attributes.name}`} onClick={() => setEditing(r)}>
                Edit
              </Button>
            )}
            {canUpdate && (
              <Button size="sm" variant="ghost" onClick={() => toggle.mutate({ id: r.id, alert_rule: { enabled: !r.attributes.enabled } })}>
                {r.attributes.enabled ? "Disable" : "Enable"}
              </Button>
            )}
            {canDelete && <Button size="sm" variant="ghost" className="text-red-700" onClick={() => setDeleting({ rule: r })}>Delete</Button>}
          </div>
        ),
      }),
    ],
    [canUpdate, canDelete, channelName, syncName, toggle],
  );

  const channelColumns = useMemo(
    () => [
      channelCol.accessor((c) => c.attributes.name, { id: "name", header: "Name", cell: (i) => <span className="font-medium text-slate-900">{i.getValue()}</span> }),
      channelCol.accessor((c) => c.attributes.channel_type, { id: "type", header: "Type" }),
      channelCol.accessor((c) => c.attributes.recipients?.join(", ") ?? c.attributes.url_host ?? "", {
        id: "target",
        header: "Sends to",
        cell: ({ row: { original: c }, getValue }) => (c.attributes.recipient_states ? <RecipientList states={c.attributes.recipient_states} /> : getValue()),
      }),
      channelCol.accessor((c) => c.attributes.created_at, { id: "created", header: "Created", cell: (i) => relativeTime(i.getValue()) }),
      channelCol.display({
        id: "actions",
        header: () => <span className="sr-only">Actions</span>,
        cell: ({ row: { original: c } }) => (
          <div className="flex justify-end gap-1">
            {canUpdate && (
              <Button size="sm" variant="ghost" loading={test.isPending && test.variables?.id === c.id} onClick={() => test.mutate(c, { onSuccess: setTested })}>
                Send test
              </Button>
            )}
            {canDelete && <Button size="sm" variant="ghost" className="text-red-700" onClick={() => setDeleting({ channel: c })}>Delete</Button>}
          </div>
        ),
      }),
    ],
    [canUpdate, canDelete, test],
  );

  return (
    <>
      <PageHeader
        title="Alerts"
        description="Hear when a sync fails, rejects rows, runs long or stops succeeding: once when it starts, once when it is resolved."
        actions={
          canCreate ? (
            <div className="flex gap-2">
              <Button variant="secondary" onClick={() => setCreating("channel")}>New channel</Button>
              <Button onClick={() => setCreating("rule")}>New alert</Button>
            </div>
          ) : null
        }
      />
      <div className="space-y-6">
        <DataTable
          label="Alert rules"
          columns={ruleColumns}
          data={rules.data?.data}
          isLoading={rules.isLoading}
          error={rules.error}
          onRetry={() => void rules.refetch()}
          getRowId={(r) => r.id}
          empty={<EmptyState title="No alerts" description="Create a channel, then an alert that sends to it." />}
        />
        <Card>
          <CardHeader title="Channels" description="Where alert messages go." />
          {tested && (
            <p role="status" className={`mx-4 mb-2 rounded-md px-3 py-2 text-sm ${tested.status === "failed" || tested.status === "suppressed" || tested.status === "unconfirmed" ? "bg-red-50 text-red-700" : "bg-emerald-50 text-emerald-700"}`}>
              {tested.status === "sent" && "Test message sent."}
              {tested.status === "logged" && "SMTP is not configured: the test message was written to the server log."}
              {tested.status === "failed" && `The test message was not delivered: ${tested.error}`}
              {(tested.status === "suppressed" || tested.status === "unconfirmed") && tested.error}
            </p>
          )}
          <DataTable
            label="Alert channels"
            columns={channelColumns}
            data={channels.data?.data}
            isLoading={channels.isLoading}
            error={channels.error}
            onRetry={() => void channels.refetch()}
            getRowId={(c) => c.id}
            empty={<EmptyState title="No channels" description="Email, a Slack incoming webhook or any webhook." />}
          />
        </Card>
        <AlertEventsCard />
      </div>
      {creating === "channel" && <ChannelDialog onClose={() => setCreating(null)} />}
      {creating === "rule" && <RuleDialog onClose={() => setCreating(null)} />}
      {editing && <RuleDialog key={editing.id} rule={editing} onClose={() => setEditing(null)} />}
      <ConfirmDialog
        open={Boolean(deleting)}
        onClose={() => setDeleting(null)}
        title={`Delete “${deleting?.rule?.attributes.name ?? deleting?.channel?.attributes.name}”?`}
        description={deleting?.rule ? "Its past events stay in the list." : "A channel an alert still uses cannot be deleted."}
        confirmLabel="Delete"
        loading={removeRule.isPending || removeChannel.isPending}
        onConfirm={() => {
          if (deleting?.rule) removeRule.mutate(deleting.rule, { onSettled: () => setDeleting(null) });
          else if (deleting?.channel) removeChannel.mutate(deleting.channel, { onSettled: () => setDeleting(null) });
        }}
      />
    </>
  );
}

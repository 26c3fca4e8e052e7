"use client";
// One webhook: its settings and actions (edit, enable, send a test, rotate the secret, delete) and the
// delivery log, each delivery with its attempts and a redeliver button.
import { createColumnHelper } from "@tanstack/react-table";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useMemo, useState } from "react";
import { dateTime, relativeTime } from "@/components/common/format";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardBody, PageHeader } from "@/components/ui/card";
import { DataTable } from "@/components/ui/data-table";
import { ConfirmDialog } from "@/components/ui/dialog";
import { EmptyState, ErrorState, LoadingState } from "@/components/ui/states";
import { useCan } from "@/lib/api-client/settings";
import {
  useDeleteWebhookSubscription,
  useRedeliver,
  useRotateWebhookSecret,
  useTestWebhook,
  useUpdateWebhookSubscription,
  useWebhookDeliveries,
  useWebhookSubscription,
  type WebhookDelivery,
} from "@/lib/api-client/webhooks";
import { EditWebhookDialog } from "./webhook-form";
import { WebhookSecretDialog } from "./webhook-secret";

const col = createColumnHelper<WebhookDelivery>();
const TONES = { pending: "amber", succeeded: "green", failed: "red" } as const;

export function WebhookDetail({ id }: { id: string }) {
  const subscription = useWebhookSubscription(id);
  const canUpdate = useCan("webhook_subscription", "update");
  const canDelete = useCan("webhook_subscription", "delete");
  const update = useUpdateWebhookSubscription(id);
  const rotate = useRotateWebhookSecret(id);
  const test = useTestWebhook(id);
  const remove = useDeleteWebhookSubscription();
  const router = useRouter();
  const [secret, setSecret] = useState<string | null>(null);
  const [confirm, setConfirm] = useState<"rotate" | "delete" | null>(null);
  const [editing, setEditing] = useState(false);

  if (subscription.isLoading) return <LoadingState />;
  if (subscription.error || !subscription.data) return <ErrorState error={subscription.error} onRetry={() => void subscription.refetch()} />;
  const s = subscription.data.attributes;
  return (
    <>
      <PageHeader
        breadcrumb={<Link href="/settings/webhooks" className="hover:underline">Webhooks</Link>}
        title={s.url}
        description={s.enabled ? "Enabled" : `Disabled${s.disabled_reason ? `: ${s.disabled_reason}` : ""}`}
        actions={
          <>
            {canUpdate && <Button variant="secondary" onClick={() => setEditing(true)}>Edit</Button>}
            {canUpdate && <Button variant="secondary" loading={test.isPending} onClick={() => test.mutate(undefined)}>Send test event</Button>}
            {canUpdate && (
              <Button variant="secondary" loading={update.isPending} onClick={() => update.mutate({ enabled: !s.enabled })}>
                {s.enabled ? "Disable" : "Enable"}
              </Button>
            )}
            {canUpdate && <Button variant="secondary" onClick={() => setConfirm("rotate")}>Rotate secret</Button>}
            {canDelete && <Button variant="danger" onClick={() => setConfirm("delete")}>Delete</Button>}
          </>
        }
      />
      <Card className="mb-6">
        <CardBody>
          <dl className="grid grid-cols-1 gap-3 text-sm sm:grid-cols-3">
            <div><dt className="text-slate-500">Events</dt><dd>{s.events.join(", ")}</dd></div>
            <div><dt className="text-slate-500">Syncs</dt><dd>{s.sync_ids ? s.sync_ids.map((i) => `#${i}`).join(", ") : "All syncs"}</dd></div>
            <div><dt className="text-slate-500">Signing secret</dt><dd><code aria-label="Signing secret (masked)">{s.secret}</code></dd></div>
          </dl>
        </CardBody>
      </Card>
      <h2 className="mb-2 text-lg font-semibold text-slate-900">Deliveries</h2>
      <Deliveries id={id} canRedeliver={canUpdate} />
      {editing && <EditWebhookDialog subscription={subscription.data} onClose={() => setEditing(false)} />}
      {secret && <WebhookSecretDialog secret={secret} onClose={() => setSecret(null)} />}
      <ConfirmDialog
        open={confirm === "rotate"}
        onClose={() => setConfirm(null)}
        title="Rotate the signing secret?"
        description="The current secret stops signing at once; your endpoint must check signatures with the new one."
        confirmLabel="Rotate"
        loading={rotate.isPending}
        onConfirm={() => rotate.mutate(undefined, { onSuccess: (r) => setSecret(r.attributes.secret), onSettled: () => setConfirm(null) })}
      />
      <ConfirmDialog
        open={confirm === "delete"}
        onClose={() => setConfirm(null)}
        title="Delete this webhook?"
        description="No more events are sent to it, and its delivery log goes too."
        confirmLabel="Delete"
        loading={remove.isPending}
        onConfirm={() => remove.mutate(id, { onSuccess: () => router.push("/settings/webhooks"), onSettled: () => setConfirm(null) })}
      />
    </>
  );
}

function Deliveries({ id, canRedeliver }: { id: string; canRedeliver: boolean }) {
  const [page, setPage] = useState(1);
  const deliveries = useWebhookDeliveries(id, page);
  const redeliver = useRedeliver(id);
  const columns = useMemo(
    () => [
      col.accessor((d) => d.attributes.event_type, {
        id: "event",
        header: "Event",
        cell: (i) => (
          <button type="button" onClick={() => i.row.toggleExpanded()} className="font-medium text-indigo-700 hover:underline" aria-expanded={i.row.getIsExpanded()}>
            {i.getValue()}
          </button>
        ),
      }),
      col.accessor((d) => d.attributes.status, { id: "status", header: "Status", cell: (i) => <Badge tone={TONES[i.getValue()]}>{i.getValue()}</Badge> }),
      col.accessor((d) => d.attributes.attempts, { id: "attempts", header: "Attempts" }),
      col.accessor((d) => d.attributes.last_status_code, { id: "code", header: "Last answer", cell: (i) => i.getValue() ?? "—" }),
      col.accessor((d) => d.attributes.next_attempt_at, { id: "next", header: "Next attempt", cell: (i) => (i.getValue() ? dateTime(i.getValue()) : "—") }),
      col.accessor((d) => d.attributes.created_at, { id: "created", header: "Created", cell: (i) => relativeTime(i.getValue()) }),
      col.display({
        id: "actions",
        header: () => <span className="sr-only">Actions</span>,
        cell: ({ row }) =>
          canRedeliver && row.original.attributes.status !== "pending" ? (
            <Button size="sm" variant="ghost" onClick={() => redeliver.mutate(row.original.id)}>Redeliver</Button>
          ) : null,
      }),
    ],
    [canRedeliver, redeliver],
  );
  return (
    <DataTable
      label="Deliveries"
      columns={columns}
      data={deliveries.data?.data}
      isLoading={deliveries.isLoading}
      error={deliveries.error}
      onRetry={() => void deliveries.refetch()}
      pagination={{ page, perPage: 25, totalPages: deliveries.data?.meta?.total_pages, totalCount: deliveries.data?.meta?.total_count }}
      onPageChange={setPage}
      getRowId={(d) => d.id}
      renderExpanded={(row) => <Attempts delivery={row.original} />}
      empty={<EmptyState title="No deliveries yet" description="Send a test event, or wait for a run to start or end." />}
    />
  );
}

function Attempts({ delivery }: { delivery: WebhookDelivery }) {
  const a = delivery.attributes;
  return (
    <div className="space-y-3 text-sm">
      <p className="text-slate-600">
        Event <code>{a.event_id}</code>
        {a.redelivery_of ? ` (a redelivery of delivery ${a.redelivery_of})` : ""}
      </p>
      <table className="min-w-full text-left">
        <caption className="sr-only">Attempts</caption>
        <thead className="text-xs uppercase text-slate-500">
          <tr><th className="pr-4">#</th><th className="pr-4">Answer</th><th className="pr-4">Took</th><th className="pr-4">Error</th><th>Next retry</th></tr>
        </thead>
        <tbody>
          {a.attempt_log.map((t) => (
            <tr key={t.attempt}>
              <td className="pr-4">{t.attempt}</td>
              <td className="pr-4">{t.status_code ?? "none"}</td>
              <td className="pr-4">{t.duration_ms} ms</td>
              <td className="pr-4 text-red-700">{t.error ?? ""}</td>
              <td>{t.next_retry_at ? dateTime(t.next_retry_at) : "—"}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <pre className="max-h-64 overflow-auto rounded-md bg-white p-2 font-mono text-xs">{JSON.stringify(a.payload, null, 2)}</pre>
    </div>
  );
}

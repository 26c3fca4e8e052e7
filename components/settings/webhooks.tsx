"use client";
// Settings → Webhooks: the workspace's subscriptions to run events, and the form that adds one.
import { zodResolver } from "@hookform/resolvers/zod";
import { createColumnHelper } from "@tanstack/react-table";
import Link from "next/link";
import { useMemo, useState } from "react";
import { useForm } from "react-hook-form";
import { relativeTime } from "@/components/common/format";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { PageHeader } from "@/components/ui/card";
import { DataTable } from "@/components/ui/data-table";
import { Dialog } from "@/components/ui/dialog";
import { Checkbox } from "@/components/ui/field";
import { EmptyState, InlineError } from "@/components/ui/states";
import { errorMessage } from "@/lib/api-client/client";
import { useCan } from "@/lib/api-client/settings";
import { useCreateWebhookSubscription, useWebhookSubscriptions, type WebhookSubscription } from "@/lib/api-client/webhooks";
import { WEBHOOK_EVENTS } from "@/lib/sync-rules/webhook-events";
import { WebhookFields, webhookFormSchema, type WebhookForm } from "./webhook-form";
import { WebhookSecretDialog } from "./webhook-secret";

const col = createColumnHelper<WebhookSubscription>();

export function WebhooksPage() {
  const [page, setPage] = useState(1);
  const list = useWebhookSubscriptions(page);
  const canCreate = useCan("webhook_subscription", "create");
  const [creating, setCreating] = useState(false);
  const columns = useMemo(
    () => [
      col.accessor((s) => s.attributes.url, {
        id: "url",
        header: "Endpoint",
        cell: (i) => (
          <Link href={`/settings/webhooks/${i.row.original.id}`} className="font-medium text-indigo-700 hover:underline">
            {i.getValue()}
          </Link>
        ),
      }),
      col.accessor((s) => s.attributes.events.join(", "), { id: "events", header: "Events" }),
      col.accessor((s) => (s.attributes.sync_ids ? `${s.attributes.sync_ids.length} chosen` : "All syncs"), { id: "syncs", header: "Syncs" }),
      col.accessor((s) => s.attributes.enabled, {
        id: "enabled",
        header: "State",
        cell: (i) => (i.getValue() ? <Badge tone="green">enabled</Badge> : <Badge tone="slate">disabled</Badge>),
      }),
      col.accessor((s) => s.attributes.secret, { id: "secret", header: "Secret", cell: (i) => <code className="text-xs">{i.getValue()}</code> }),
      col.accessor((s) => s.attributes.created_at, { id: "created", header: "Created", cell: (i) => relativeTime(i.getValue()) }),
    ],
    [],
  );
  return (
    <>
      <PageHeader
        title="Webhooks"
        description="Run events (started, succeeded, failed, needs approval) POSTed to your endpoints, signed with a secret of their own."
        actions={canCreate ? <Button onClick={() => setCreating(true)}>New webhook</Button> : null}
      />
      <DataTable
        label="Webhooks"
        columns={columns}
        data={list.data?.data}
        isLoading={list.isLoading}
        error={list.error}
        onRetry={() => void list.refetch()}
        pagination={{ page, perPage: 25, totalPages: list.data?.meta?.total_pages, totalCount: list.data?.meta?.total_count }}
        onPageChange={setPage}
        getRowId={(s) => s.id}
        empty={<EmptyState title="No webhooks" description="Add an endpoint to hear about runs as they start and end." />}
      />
      {creating && <CreateWebhookDialog onClose={() => setCreating(false)} />}
    </>
  );
}

function CreateWebhookDialog({ onClose }: { onClose: () => void }) {
  const create = useCreateWebhookSubscription();
  const [secret, setSecret] = useState<string | null>(null);
  const form: WebhookForm = useForm({
    resolver: zodResolver(webhookFormSchema),
    defaultValues: { webhook_subscription: { url: "", events: [...WEBHOOK_EVENTS], sync_ids: null, enabled: true } },
  });
  const submit = form.handleSubmit((values) => create.mutate(values.webhook_subscription, { onSuccess: (s) => setSecret(s.attributes.secret) }));
  if (secret !== null) return <WebhookSecretDialog secret={secret} onClose={onClose} />;
  return (
    <Dialog open onClose={onClose} title="New webhook" wide>
      <form onSubmit={submit} noValidate className="space-y-4">
        <WebhookFields form={form} autoFocus />
        <Checkbox label="Enabled" {...form.register("webhook_subscription.enabled")} />
        <InlineError message={create.error ? errorMessage(create.error) : null} />
        <div className="flex justify-end gap-2">
          <Button variant="secondary" onClick={onClose}>Cancel</Button>
          <Button type="submit" loading={create.isPending}>Create webhook</Button>
        </div>
      </form>
    </Dialog>
  );
}

"use client";
// Settings → Webhooks: the workspace's subscriptions to run events, and the form that adds one.
import { zodResolver } from "@hookform/resolvers/zod";
import { createColumnHelper } from "@tanstack/react-table";
import Link from "next/link";
import { useMemo, useState } from "react";
import { useForm, useWatch } from "react-hook-form";
import { relativeTime } from "@/components/common/format";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { PageHeader } from "@/components/ui/card";
import { DataTable } from "@/components/ui/data-table";
import { Dialog } from "@/components/ui/dialog";
import { Checkbox, Field, Input } from "@/components/ui/field";
import { EmptyState, InlineError } from "@/components/ui/states";
import { errorMessage } from "@/lib/api-client/client";
import { useCan } from "@/lib/api-client/settings";
import { useSyncs } from "@/lib/api-client/syncs";
import { useCreateWebhookSubscription, useWebhookSubscriptions, type WebhookSubscription } from "@/lib/api-client/webhooks";
import { WEBHOOK_EVENTS } from "@/lib/sync-config/webhook-events";
import { createWebhookSubscriptionSchema } from "@/lib/validation/webhook-subscriptions";
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
  const syncs = useSyncs({ page: 1, perPage: 100 });
  const [secret, setSecret] = useState<string | null>(null);
  const form = useForm({
    resolver: zodResolver(createWebhookSubscriptionSchema),
    defaultValues: { webhook_subscription: { url: "", events: [...WEBHOOK_EVENTS], sync_ids: null, enabled: true } },
  });
  const errors = form.formState.errors.webhook_subscription;
  const chosen = useWatch({ control: form.control, name: "webhook_subscription.sync_ids" });
  const setChosen = (ids: number[] | null) => form.setValue("webhook_subscription.sync_ids", ids, { shouldValidate: form.formState.isSubmitted });
  const submit = form.handleSubmit((values) => create.mutate(values.webhook_subscription, { onSuccess: (s) => setSecret(s.attributes.secret) }));
  if (secret !== null) return <WebhookSecretDialog secret={secret} onClose={onClose} />;
  return (
    <Dialog open onClose={onClose} title="New webhook" wide>
      <form onSubmit={submit} noValidate className="space-y-4">
        <Field label="Endpoint URL" required hint="Where events are POSTed, e.g. https://example.com/hooks/datasync." error={errors?.url && `URL ${errors.url.message}`}>
          {(p) => <Input {...p} autoFocus placeholder="https://" {...form.register("webhook_subscription.url")} />}
        </Field>
        <fieldset>
          <legend className="mb-1 text-sm font-medium text-slate-700">Events</legend>
          <div className="grid grid-cols-2 gap-2">
            {WEBHOOK_EVENTS.map((e) => (
              <Checkbox key={e} label={e} value={e} {...form.register("webhook_subscription.events")} />
            ))}
          </div>
          <InlineError message={errors?.events && `Events ${errors.events.message ?? "are invalid"}`} />
        </fieldset>
        <fieldset>
          <legend className="mb-1 text-sm font-medium text-slate-700">Syncs</legend>
          <div className="flex gap-4">
            <label className="flex items-center gap-2 text-sm">
              <input type="radio" name="sync-scope" checked={chosen == null} onChange={() => setChosen(null)} /> All syncs
            </label>
            <label className="flex items-center gap-2 text-sm">
              <input type="radio" name="sync-scope" checked={chosen != null} onChange={() => setChosen([])} /> Only these syncs
            </label>
          </div>
          {chosen != null && (
            <div className="mt-2 max-h-40 space-y-1 overflow-y-auto rounded-md border border-slate-200 p-2">
              {(syncs.data?.data ?? []).map((s) => (
                <Checkbox
                  key={s.id}
                  label={s.attributes.name || `Sync ${s.id}`}
                  checked={chosen.includes(Number(s.id))}
                  onChange={(e) => setChosen(e.target.checked ? [...chosen, Number(s.id)] : chosen.filter((id) => id !== Number(s.id)))}
                />
              ))}
              {syncs.data?.data.length === 0 && <p className="text-sm text-slate-500">No syncs yet.</p>}
            </div>
          )}
          <InlineError message={errors?.sync_ids && `Syncs ${errors.sync_ids.message ?? "are invalid"}`} />
        </fieldset>
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

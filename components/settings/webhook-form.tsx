"use client";
// The webhook form's fields (endpoint, events, syncs), shared by the new-webhook dialog and the edit
// dialog. The edit dialog never shows the secret: it was shown once, at creation (or rotation), and
// the API only ever answers it masked. Events this console does not know (a newer server's) are
// kept: shown as they are and sent back with the events the person picked.
import { zodResolver } from "@hookform/resolvers/zod";
import { useState } from "react";
import { useForm, useWatch, type UseFormReturn } from "react-hook-form";
import type { z } from "zod";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { Checkbox, Field, Input } from "@/components/ui/field";
import { InlineError } from "@/components/ui/states";
import { errorMessage } from "@/lib/api-client/client";
import { useSyncs } from "@/lib/api-client/syncs";
import { useUpdateWebhookSubscription, type WebhookSubscription } from "@/lib/api-client/webhooks";
import { WEBHOOK_EVENTS } from "@/lib/sync-rules/webhook-events";
import { createWebhookSubscriptionSchema } from "@/lib/validation/webhook-subscriptions";
import { eventChanges, splitEvents } from "./webhook-event-changes";

/** A whole subscription: the create schema, also for an edit, which sends every field it shows. */
export const webhookFormSchema = createWebhookSubscriptionSchema;
export type WebhookForm = UseFormReturn<z.input<typeof webhookFormSchema>, unknown, z.output<typeof webhookFormSchema>>;

/** Syncs per page of the sync picker: chosen syncs stay chosen while the person pages. */
const SYNCS_PER_PAGE = 25;

/** `otherEvents`: the subscription's events this console does not know, kept as they are. */
export function WebhookFields({ form, autoFocus, otherEvents = [] }: { form: WebhookForm; autoFocus?: boolean; otherEvents?: string[] }) {
  const [syncPage, setSyncPage] = useState(1);
  const syncs = useSyncs({ page: syncPage, perPage: SYNCS_PER_PAGE });
  const totalPages = syncs.data?.meta?.total_pages ?? 1;
  const errors = form.formState.errors.webhook_subscription;
  const chosen = useWatch({ control: form.control, name: "webhook_subscription.sync_ids" });
  const setChosen = (ids: number[] | null) => form.setValue("webhook_subscription.sync_ids", ids, { shouldValidate: form.formState.isSubmitted });
  return (
    <>
      <Field label="Endpoint URL" required hint="Where events are POSTed, e.g. https://example.com/hooks/datasync." error={errors?.url && `URL ${errors.url.message}`}>
        {(p) => <Input {...p} autoFocus={autoFocus} placeholder="https://" {...form.register("webhook_subscription.url")} />}
      </Field>
      <fieldset>
        <legend className="mb-1 text-sm font-medium text-slate-700">Events</legend>
        <div className="grid grid-cols-2 gap-2">
          {WEBHOOK_EVENTS.map((e) => (
            <Checkbox key={e} label={e} value={e} {...form.register("webhook_subscription.events")} />
          ))}
        </div>
        {otherEvents.length > 0 && (
          <p className="mt-2 flex flex-wrap items-center gap-1 text-xs text-slate-600" data-testid="other-events">
            Also sent, kept as they are (not known to this console):
            {otherEvents.map((e) => <Badge key={e}>{e}</Badge>)}
          </p>
        )}
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
        {chosen != null && totalPages > 1 && (
          <div className="mt-1 flex items-center justify-between text-xs text-slate-600">
            <span>{chosen.length} chosen · page {syncPage} of {totalPages}</span>
            <span className="flex gap-2">
              <Button size="sm" variant="secondary" disabled={syncPage <= 1} onClick={() => setSyncPage(syncPage - 1)}>Previous syncs</Button>
              <Button size="sm" variant="secondary" disabled={syncPage >= totalPages} onClick={() => setSyncPage(syncPage + 1)}>More syncs</Button>
            </span>
          </div>
        )}
        <InlineError message={errors?.sync_ids && `Syncs ${errors.sync_ids.message ?? "are invalid"}`} />
      </fieldset>
    </>
  );
}

export function EditWebhookDialog({ subscription, onClose }: { subscription: WebhookSubscription; onClose: () => void }) {
  const update = useUpdateWebhookSubscription(subscription.id, { toastErrors: false });
  const s = subscription.attributes;
  const { known, other: otherEvents } = splitEvents(s.events);
  const form: WebhookForm = useForm({
    resolver: zodResolver(webhookFormSchema),
    defaultValues: { webhook_subscription: { url: s.url, events: known, sync_ids: s.sync_ids ? [...s.sync_ids] : null, enabled: s.enabled } },
  });
  // Enabling is the page's own button (it also clears why the server disabled it): not sent from here.
  // The events go only when the person changed them, then with the unknown ones kept.
  const submit = form.handleSubmit(({ webhook_subscription: { url, events, sync_ids } }) =>
    update.mutate({ url, ...eventChanges(events, s.events), sync_ids: sync_ids ?? null }, { onSuccess: onClose }),
  );
  return (
    <Dialog open onClose={onClose} title="Edit webhook" description="The signing secret stays as it is; rotate it from the webhook's page." wide>
      <form onSubmit={submit} noValidate className="space-y-4">
        <WebhookFields form={form} autoFocus otherEvents={otherEvents} />
        <InlineError message={update.error ? errorMessage(update.error) : null} />
        <div className="flex justify-end gap-2">
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={update.isPending}>
            Save webhook
          </Button>
        </div>
      </form>
    </Dialog>
  );
}

"use client";
// The webhook form's fields (endpoint, events, syncs), shared by the new-webhook dialog and the edit
// dialog. The edit dialog sends the whole subscription as an update and never shows the secret:
// it was shown once, at creation (or rotation), and the API only ever answers it masked.
import { zodResolver } from "@hookform/resolvers/zod";
import { useForm, useWatch, type UseFormReturn } from "react-hook-form";
import type { z } from "zod";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { Checkbox, Field, Input } from "@/components/ui/field";
import { InlineError } from "@/components/ui/states";
import { errorMessage } from "@/lib/api-client/client";
import { useSyncs } from "@/lib/api-client/syncs";
import { useUpdateWebhookSubscription, type WebhookSubscription } from "@/lib/api-client/webhooks";
import { WEBHOOK_EVENTS, type WebhookEvent } from "@/lib/sync-config/webhook-events";
import { createWebhookSubscriptionSchema } from "@/lib/validation/webhook-subscriptions";

const isWebhookEvent = (e: string): e is WebhookEvent => (WEBHOOK_EVENTS as readonly string[]).includes(e);

/** A whole subscription: the create schema, also for an edit, which sends every field it shows. */
export const webhookFormSchema = createWebhookSubscriptionSchema;
export type WebhookForm = UseFormReturn<z.input<typeof webhookFormSchema>, unknown, z.output<typeof webhookFormSchema>>;

export function WebhookFields({ form, autoFocus }: { form: WebhookForm; autoFocus?: boolean }) {
  const syncs = useSyncs({ page: 1, perPage: 100 });
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
    </>
  );
}

export function EditWebhookDialog({ subscription, onClose }: { subscription: WebhookSubscription; onClose: () => void }) {
  const update = useUpdateWebhookSubscription(subscription.id, { toastErrors: false });
  const s = subscription.attributes;
  const form: WebhookForm = useForm({
    resolver: zodResolver(webhookFormSchema),
    defaultValues: { webhook_subscription: { url: s.url, events: s.events.filter(isWebhookEvent), sync_ids: s.sync_ids ? [...s.sync_ids] : null, enabled: s.enabled } },
  });
  // Enabling is the page's own button (it also clears why the server disabled it): not sent from here.
  const submit = form.handleSubmit(({ webhook_subscription: { url, events, sync_ids } }) =>
    update.mutate({ url, events, sync_ids: sync_ids ?? null }, { onSuccess: onClose }),
  );
  return (
    <Dialog open onClose={onClose} title="Edit webhook" description="The signing secret stays as it is; rotate it from the webhook's page." wide>
      <form onSubmit={submit} noValidate className="space-y-4">
        <WebhookFields form={form} autoFocus />
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

"use client";
// A new alert channel: email recipients, or the URL of a Slack incoming webhook or a generic webhook.
import { zodResolver } from "@hookform/resolvers/zod";
import { useForm, useWatch } from "react-hook-form";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { Field, Input, Select } from "@/components/ui/field";
import { InlineError } from "@/components/ui/states";
import { useCreateAlertChannel } from "@/lib/api-client/alerts";
import { errorMessage } from "@/lib/api-client/client";
import { createAlertChannelSchema } from "@/lib/validation/alerts";

const splitList = (v: unknown) =>
  typeof v === "string"
    ? v
        .split(/[,\s;]+/)
        .map((s) => s.trim())
        .filter(Boolean)
    : v;

export function ChannelDialog({ onClose }: { onClose: () => void }) {
  const create = useCreateAlertChannel();
  const form = useForm({
    resolver: zodResolver(createAlertChannelSchema),
    defaultValues: { alert_channel: { name: "", channel_type: "email" as const, recipients: null, url: null } },
  });
  const type = useWatch({ control: form.control, name: "alert_channel.channel_type" });
  const errors = form.formState.errors.alert_channel;
  const submit = form.handleSubmit((values) => {
    const c = values.alert_channel;
    create.mutate(
      c.channel_type === "email" ? { name: c.name, channel_type: c.channel_type, recipients: c.recipients } : { name: c.name, channel_type: c.channel_type, url: c.url },
      { onSuccess: onClose },
    );
  });
  return (
    <Dialog open onClose={onClose} title="New alert channel">
      <form onSubmit={submit} noValidate className="space-y-4">
        <Field label="Name" required error={errors?.name && `Name ${errors.name.message}`}>
          {(p) => <Input {...p} autoFocus {...form.register("alert_channel.name")} />}
        </Field>
        <Field label="Type" required>
          {(p) => (
            <Select {...p} {...form.register("alert_channel.channel_type")}>
              <option value="email">Email</option>
              <option value="slack">Slack incoming webhook</option>
              <option value="webhook">Webhook (JSON POST)</option>
            </Select>
          )}
        </Field>
        {type === "email" ? (
          <Field label="Recipients" required hint="Email addresses, separated by commas. Members of the workspace get alerts at once; any other address gets one mail with a link to confirm, and no alert until it does." error={errors?.recipients && `Recipients ${errors.recipients.message ?? "must be email addresses"}`}>
            {(p) => <Input {...p} placeholder="ops@example.com" {...form.register("alert_channel.recipients", { setValueAs: splitList })} />}
          </Field>
        ) : (
          <Field
            label="URL"
            required
            hint={type === "slack" ? "The incoming webhook URL from Slack; it is kept secret and never shown again." : "Messages are POSTed here as JSON."}
            error={errors?.url && `URL ${errors.url.message}`}
          >
            {(p) => <Input {...p} type="url" placeholder="https://" {...form.register("alert_channel.url", { setValueAs: (v) => (v ? String(v) : null) })} />}
          </Field>
        )}
        <InlineError message={create.error ? errorMessage(create.error) : null} />
        <div className="flex justify-end gap-2">
          <Button variant="secondary" onClick={onClose}>Cancel</Button>
          <Button type="submit" loading={create.isPending}>Create channel</Button>
        </div>
      </form>
    </Dialog>
  );
}

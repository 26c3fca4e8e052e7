"use client";
// A new or an edited alert: what to watch (a condition, its threshold), on which sync, and who hears about it.
import { zodResolver } from "@hookform/resolvers/zod";
import { Controller, useForm, useWatch } from "react-hook-form";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { Checkbox, Field, Input, Select } from "@/components/ui/field";
import { InlineError } from "@/components/ui/states";
import { useAlertChannels, useCreateAlertRule, useUpdateAlertRule, type AlertRule } from "@/lib/api-client/alerts";
import { errorMessage } from "@/lib/api-client/client";
import { useSyncs } from "@/lib/api-client/syncs";
import { ALERT_CONDITIONS, createAlertRuleSchema, THRESHOLD_UNITS, type CreateAlertRuleInput } from "@/lib/validation/alerts";
import { ruleChanges } from "./rule-changes";

export const CONDITION_LABELS: Record<(typeof ALERT_CONDITIONS)[number], string> = {
  run_failed: "A run failed",
  rejected_rows_percent: "Rejected rows above a share of the run",
  rejected_rows: "Rejected rows above a count",
  run_duration: "A run takes longer than",
  rows_changed: "A run changes more rows than",
  sync_not_succeeded: "No successful run for",
  live_lag_bytes: "A live sync's slot holds more than",
  live_lag_seconds: "A live sync trails its source by more than",
};

/** A new alert, or an existing `rule` to edit (only the changed fields are sent; its status stays the server's). */
export function RuleDialog({ rule, onClose }: { rule?: AlertRule; onClose: () => void }) {
  const create = useCreateAlertRule();
  const update = useUpdateAlertRule({ toastErrors: false });
  const save = rule ? update : create;
  const channels = useAlertChannels();
  const syncs = useSyncs({ page: 1, perPage: 100 });
  const r = rule?.attributes;
  const initial: CreateAlertRuleInput = r
    ? { name: r.name, condition: r.condition, threshold: r.threshold, sync_id: r.sync_id, channel_ids: [...r.channel_ids] }
    : { name: "", condition: "run_failed", threshold: null, sync_id: null, channel_ids: [] };
  const form = useForm({
    resolver: zodResolver(createAlertRuleSchema),
    defaultValues: { alert_rule: initial },
  });
  const currentSync = r?.sync_id ?? null;
  const listed = syncs.data?.data.find((s) => Number(s.id) === currentSync);
  const currentSyncName = listed?.attributes.name || `Sync ${currentSync}`;
  const condition = useWatch({ control: form.control, name: "alert_rule.condition" });
  const unit = THRESHOLD_UNITS[condition];
  const errors = form.formState.errors.alert_rule;
  const submit = form.handleSubmit((values) => {
    if (rule) {
      const changes = ruleChanges(values.alert_rule, initial, unit !== null);
      if (Object.keys(changes).length === 0) return onClose();
      update.mutate({ id: rule.id, alert_rule: changes }, { onSuccess: onClose });
    } else create.mutate({ ...values.alert_rule, threshold: unit ? values.alert_rule.threshold : null }, { onSuccess: onClose });
  });
  return (
    <Dialog open onClose={onClose} title={rule ? "Edit alert" : "New alert"}>
      <form onSubmit={submit} noValidate className="space-y-4">
        <Field label="Name" required error={errors?.name && `Name ${errors.name.message}`}>
          {(p) => <Input {...p} autoFocus {...form.register("alert_rule.name")} />}
        </Field>
        <Field label="Sync" hint="One sync, or every sync of the workspace.">
          {(p) => (
            <Select {...p} {...form.register("alert_rule.sync_id", { setValueAs: (v) => (v === "" || v === null ? null : Number(v)) })}>
              <option value="">Every sync</option>
              {/* The rule's own sync first, also when it is not in the first page of syncs or was deleted. */}
              {currentSync !== null && <option value={currentSync}>{currentSyncName}</option>}
              {syncs.data?.data.filter((s) => Number(s.id) !== currentSync).map((s) => (
                <option key={s.id} value={s.id}>{s.attributes.name || `Sync ${s.id}`}</option>
              ))}
            </Select>
          )}
        </Field>
        <Field label="Condition" required>
          {(p) => (
            <Select {...p} {...form.register("alert_rule.condition")}>
              {ALERT_CONDITIONS.map((c) => <option key={c} value={c}>{CONDITION_LABELS[c]}</option>)}
            </Select>
          )}
        </Field>
        {unit && (
          <Field label={`Threshold (${unit})`} required error={errors?.threshold && `Threshold ${errors.threshold.message}`}>
            {(p) => <Input {...p} type="number" min={0} step="any" {...form.register("alert_rule.threshold", { setValueAs: (v) => (v === "" || v === null ? null : Number(v)) })} />}
          </Field>
        )}
        <fieldset>
          <legend className="mb-1 text-sm font-medium text-slate-700">Channels</legend>
          <Controller
            control={form.control}
            name="alert_rule.channel_ids"
            render={({ field }) => (
              <div className="space-y-1">
                {channels.data?.data.map((c) => (
                  <Checkbox
                    key={c.id}
                    label={`${c.attributes.name} (${c.attributes.channel_type})`}
                    checked={field.value.includes(Number(c.id))}
                    onChange={(e) => field.onChange(e.target.checked ? [...field.value, Number(c.id)] : field.value.filter((id) => id !== Number(c.id)))}
                  />
                ))}
                {channels.data?.data.length === 0 && <p className="text-sm text-slate-500">Create a channel first.</p>}
              </div>
            )}
          />
          {errors?.channel_ids && <p className="mt-1 text-xs font-medium text-red-600">Channels {errors.channel_ids.message}</p>}
        </fieldset>
        <InlineError message={save.error ? errorMessage(save.error) : null} />
        <div className="flex justify-end gap-2">
          <Button variant="secondary" onClick={onClose}>Cancel</Button>
          <Button type="submit" loading={save.isPending}>{rule ? "Save alert" : "Create alert"}</Button>
        </div>
      </form>
    </Dialog>
  );
}

"use client";
import { useMemo } from "react";
import { Field, Input, Select } from "@/components/ui/field";
import { nextRunTimes, scheduleSpecFromApi } from "@/lib/sync-rules/schedule";
import { scheduleErrors, SYNC_INTERVAL_UNITS } from "@/lib/validation/syncs";
import type { StepProps } from "./step";

const TIMEZONES: string[] = typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : ["UTC"];

export function ScheduleStep({ form, data }: StepProps) {
  const { values } = data;
  const errors = form.formState.errors.sync;
  const nextTimes = useMemo(() => {
    try {
      if (values.schedule_type === "manual" || scheduleErrors(values).length) return [];
      return nextRunTimes(scheduleSpecFromApi(values), 5);
    } catch {
      return [];
    }
  }, [values]);
  const zone = values.schedule_type === "cron_expression" ? values.timezone || "UTC" : undefined;

  return (
    <>
      <Field label="Schedule" className="max-w-md">
        {(p) => (
          <Select
            {...p}
            {...form.register("sync.schedule_type", {
              // The fields the new type hides take their errors with them (they are not checked any more).
              onChange: () => form.clearErrors(["sync.sync_interval", "sync.sync_interval_unit", "sync.cron_expression", "sync.timezone"]),
            })}
          >
            <option value="manual">Manually (Run now only)</option>
            <option value="interval">Every N minutes, hours, days or weeks</option>
            <option value="cron_expression">Cron expression</option>
          </Select>
        )}
      </Field>
      {values.schedule_type === "interval" && (
        <div className="flex max-w-md gap-3">
          <Field label="Every" error={errors?.sync_interval?.message} className="w-32">
            {(p) => <Input {...p} type="number" min={1} {...form.register("sync.sync_interval", { valueAsNumber: true })} />}
          </Field>
          <Field label="Unit" error={errors?.sync_interval_unit?.message} className="flex-1">
            {(p) => (
              <Select {...p} {...form.register("sync.sync_interval_unit")}>
                {SYNC_INTERVAL_UNITS.map((u) => <option key={u} value={u}>{u}</option>)}
              </Select>
            )}
          </Field>
        </div>
      )}
      {values.schedule_type === "cron_expression" && (
        <div className="grid max-w-2xl grid-cols-1 gap-3 sm:grid-cols-2">
          <Field label="Cron expression" hint="minute hour day-of-month month day-of-week" error={errors?.cron_expression?.message}>
            {(p) => <Input {...p} className="font-mono" {...form.register("sync.cron_expression")} />}
          </Field>
          <Field label="Time zone" error={errors?.timezone?.message}>
            {(p) => (
              <Select {...p} {...form.register("sync.timezone")}>
                {TIMEZONES.includes("UTC") ? null : <option value="UTC">UTC</option>}
                {TIMEZONES.map((t) => <option key={t} value={t}>{t}</option>)}
              </Select>
            )}
          </Field>
        </div>
      )}
      {values.schedule_type !== "manual" && (
        <div className="rounded-md border border-slate-200 bg-slate-50 px-4 py-3 text-sm" aria-live="polite">
          <p className="font-medium text-slate-700">Next five runs</p>
          {nextTimes.length ? (
            <ol className="mt-1 list-decimal pl-5 font-mono text-xs text-slate-700" data-testid="next-runs">
              {nextTimes.map((t) => (
                <li key={t.toISOString()}>
                  {t.toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "short", timeZone: zone })}
                  {zone && ` (${zone})`}
                </li>
              ))}
            </ol>
          ) : (
            <p className="mt-1 text-slate-500">Complete the schedule to see its next runs.</p>
          )}
        </div>
      )}
    </>
  );
}

export const SCHEDULE_FIELDS = ["schedule_type", "sync_interval", "sync_interval_unit", "cron_expression", "timezone"] as const;

